package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/static"
	"github.com/ccwallet/ccwallet/web"
	"github.com/ccwallet/ccwallet/web/devoidc"
)

// OIDCConfig is the values file's oidc block: the OpenID Provider the web
// wallet logs users in with, and its sessions. With no issuer on a
// development network the built-in development provider is used.
type OIDCConfig struct {
	Issuer       string   `yaml:"issuer"`
	ClientID     string   `yaml:"clientId"`
	ClientSecret string   `yaml:"clientSecret"`
	Scopes       []string `yaml:"scopes"`
	// RedirectURL defaults to publicUrl + "/auth/callback".
	RedirectURL string `yaml:"redirectUrl"`
	// SessionSecret keys the session cookies (at least 32 characters).
	SessionSecret string `yaml:"sessionSecret"`
	// SecureCookies marks cookies Secure (with the __Host- prefix); set it
	// when users reach the wallet over HTTPS.
	SecureCookies bool `yaml:"secureCookies"`
	// UserClaim is the claim of the provider's tokens that names the user
	// (default sub): email or preferred_username where sub is opaque.
	// Browser sessions and API tokens use the same one.
	UserClaim string `yaml:"userClaim"`
}

// userClaim is the claim naming the user, sub unless configured.
func (c OIDCConfig) userClaim() string { return cmp.Or(c.UserClaim, "sub") }

// WebConfig is the values file's web block: the web wallet's rate limits
// and the reverse proxies trusted to name the client's address.
type WebConfig struct {
	// TrustedProxies are addresses or CIDR prefixes of reverse proxies
	// whose X-Forwarded-For names the client. Empty (the default): the
	// header is ignored and the connection's address is the client's.
	TrustedProxies []string      `yaml:"trustedProxies"`
	RateLimit      WebRateLimits `yaml:"rateLimit"`
	// BodyReadTimeout, IdleTimeout, WriteStallTimeout and
	// MaxConnectionsPerClient bound slow and greedy clients on every
	// listener (app, Ledger API, health, metrics); see web.ClientLimits.
	// Zero takes the default; maxConnectionsPerClient -1 turns the cap off.
	BodyReadTimeout         Duration `yaml:"bodyReadTimeout"`
	IdleTimeout             Duration `yaml:"idleTimeout"`
	WriteStallTimeout       Duration `yaml:"writeStallTimeout"`
	MaxConnectionsPerClient int      `yaml:"maxConnectionsPerClient"`
}

// clientLimits are the listeners' limits of slow and greedy clients.
func (c WebConfig) clientLimits() web.ClientLimits {
	addr, _ := web.NewClientAddr(c.TrustedProxies) // checked by validate
	return web.ClientLimits{BodyReadTimeout: c.BodyReadTimeout.Std(), IdleTimeout: c.IdleTimeout.Std(),
		WriteStallTimeout: c.WriteStallTimeout.Std(), MaxConnsPerClient: c.MaxConnectionsPerClient, Clients: addr}
}

// WebRateLimits is web.rateLimit; each is {burst, per}, burst 0 is off.
type WebRateLimits struct {
	// Login: login attempts per client address.
	Login RateLimitConfig `yaml:"login"`
	// FormsPerSession and FormsPerClient: form posts per logged-in session
	// and per client address.
	FormsPerSession RateLimitConfig `yaml:"formsPerSession"`
	FormsPerClient  RateLimitConfig `yaml:"formsPerClient"`
}

func defaultWebConfig() WebConfig {
	rl := func(r web.RateLimit) RateLimitConfig { return RateLimitConfig{Burst: r.Burst, Per: Duration(r.Per)} }
	return WebConfig{RateLimit: WebRateLimits{Login: rl(web.DefaultLoginRateLimit),
		FormsPerSession: rl(web.DefaultFormRateLimit), FormsPerClient: rl(web.DefaultFormClientRateLimit)},
		BodyReadTimeout: Duration(web.DefaultBodyReadTimeout), IdleTimeout: Duration(web.DefaultConnIdleTimeout),
		WriteStallTimeout: Duration(web.DefaultWriteStallTimeout), MaxConnectionsPerClient: web.DefaultMaxConnsPerClient}
}

func (c WebConfig) validate() []error {
	var errs []error
	if _, err := web.NewClientAddr(c.TrustedProxies); err != nil {
		errs = append(errs, fmt.Errorf("web.trustedProxies: %w", err))
	}
	if c.BodyReadTimeout < 0 || c.IdleTimeout < 0 || c.WriteStallTimeout < 0 {
		errs = append(errs, fmt.Errorf("web.bodyReadTimeout, web.idleTimeout, web.writeStallTimeout: must be positive durations such as 30s"))
	}
	if c.MaxConnectionsPerClient < -1 {
		errs = append(errs, fmt.Errorf("web.maxConnectionsPerClient: a positive number, or -1 for no cap"))
	}
	for _, l := range []struct {
		key string
		r   RateLimitConfig
	}{{"login", c.RateLimit.Login}, {"formsPerSession", c.RateLimit.FormsPerSession}, {"formsPerClient", c.RateLimit.FormsPerClient}} {
		if l.r.Burst < 0 || l.r.Burst > 0 && l.r.Per <= 0 {
			errs = append(errs, fmt.Errorf("web.rateLimit.%s: burst must be 0 (off) or positive, with a positive per", l.key))
		}
	}
	return errs
}

// limits builds the web wallet's limiters from the validated block.
func (c WebConfig) limits() handlers.UILimits {
	lim := func(r RateLimitConfig) *web.Limiter {
		return web.NewLimiter(web.RateLimit{Burst: r.Burst, Per: r.Per.Std()})
	}
	addr, _ := web.NewClientAddr(c.TrustedProxies) // checked by validate
	return handlers.UILimits{Login: lim(c.RateLimit.Login), FormPerSession: lim(c.RateLimit.FormsPerSession),
		FormPerClient: lim(c.RateLimit.FormsPerClient), ClientAddr: addr}
}

// devClientID is the built-in provider's client of the wallet.
const devClientID = "ccwallet-web"

// oidcFromEnv applies the WALLET_OIDC_* and WALLET_SESSION_* variables.
func (c *OIDCConfig) fromEnv(getenv func(string) string) error {
	for env, dst := range map[string]*string{
		"WALLET_OIDC_ISSUER": &c.Issuer, "WALLET_OIDC_CLIENT_ID": &c.ClientID, "WALLET_OIDC_CLIENT_SECRET": &c.ClientSecret,
		"WALLET_OIDC_REDIRECT_URL": &c.RedirectURL, "WALLET_SESSION_SECRET": &c.SessionSecret,
	} {
		if v := getenv(env); v != "" {
			*dst = v
		}
	}
	if v := getenv("WALLET_OIDC_SCOPES"); v != "" {
		c.Scopes = strings.Fields(strings.ReplaceAll(v, ",", " "))
	}
	if v := getenv("WALLET_SECURE_COOKIES"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("WALLET_SECURE_COOKIES: %w", err)
		}
		c.SecureCookies = b
	}
	return nil
}

// oidcSettings is the oidc block with the environment applied and the
// development network's defaults filled in, or every reason serve would
// refuse it (config check runs it too, see Config.check).
func (c Config) oidcSettings(getenv func(string) string) (OIDCConfig, error) {
	oc := c.OIDC
	if err := oc.fromEnv(getenv); err != nil {
		return oc, err
	}
	var errs []error
	if oc.SessionSecret == "" && c.DevNet() {
		oc.SessionSecret = web.DevSessionSecret
	}
	switch {
	case !c.DevNet() && (oc.SessionSecret == "" || oc.SessionSecret == web.DevSessionSecret):
		errs = append(errs, errors.New("oidc.sessionSecret: set a secret of your own (at least 32 characters) outside the development network"))
	case len(oc.SessionSecret) < web.MinSessionSecret:
		errs = append(errs, fmt.Errorf("oidc.sessionSecret: must be at least %d characters, not %d", web.MinSessionSecret, len(oc.SessionSecret)))
	}
	if oc.Issuer == "" && !c.DevNet() {
		errs = append(errs, errors.New("oidc.issuer: required outside the development network (the built-in provider is for development only)"))
	}
	if oc.Issuer != "" && oc.ClientID == "" {
		errs = append(errs, errors.New("oidc.clientId: required with oidc.issuer (the wallet's client at the provider)"))
	}
	return oc, errors.Join(errs...)
}

// newUI builds the web wallet's sessions, login and (on a development
// network without a configured issuer) the built-in provider. baseURL is
// the wallet's public URL without a trailing slash.
func newUI(ctx context.Context, cfg Config, getenv func(string) string, baseURL string, live web.SessionStore, log *slog.Logger) (*handlers.UI, error) {
	oc, err := cfg.oidcSettings(getenv)
	if err != nil {
		return nil, err
	}
	if oc.RedirectURL == "" {
		oc.RedirectURL = baseURL + "/auth/callback"
	}
	ui := &handlers.UI{BaseURL: baseURL, Shutdown: ctx.Done(), Limits: cfg.Web.limits()}
	if oc.Issuer == "" {
		if oc.ClientID == "" {
			oc.ClientID = devClientID
		}
		if oc.ClientSecret == "" {
			oc.ClientSecret = "devnet-" + devClientID
		}
		dev, err := devoidc.New(devoidc.Config{
			BaseURL: baseURL, ClientID: oc.ClientID, ClientSecret: oc.ClientSecret,
			RedirectURL: oc.RedirectURL, PostLogoutURL: baseURL + "/", StylesheetURL: static.URL("app.css"),
		}, log)
		if err != nil {
			return nil, err
		}
		oc.Issuer = dev.Issuer()
		ui.DevProvider = dev.Handler()
		log.Warn("development OpenID Provider on: demo users admin, alice and bob (passwords on its login page)", "issuer", oc.Issuer)
	}
	login, err := web.NewOIDCLogin(web.OIDCConfig{
		Issuer: oc.Issuer, ClientID: oc.ClientID, ClientSecret: oc.ClientSecret, Scopes: oc.Scopes, UserClaim: oc.userClaim(),
		RedirectURL: oc.RedirectURL, Secret: oc.SessionSecret, Secure: oc.SecureCookies, Log: log,
	})
	if err != nil {
		return nil, err
	}
	sessions, err := web.NewSessions(web.SessionConfig{Secret: oc.SessionSecret, Secure: oc.SecureCookies, Store: live, Refresher: login})
	if err != nil {
		return nil, err
	}
	ui.Sessions, ui.Login = sessions, login
	return ui, nil
}

// devLoginHint tells whoever ran `make run` how to log in.
func devLoginHint() string {
	var b strings.Builder
	b.WriteString("development login (built-in provider, devnet only):")
	for _, u := range devoidc.DefaultUsers {
		fmt.Fprintf(&b, "\n  %-6s password %-13s %s", u.Name, u.Password, u.Role)
	}
	return b.String()
}
