package web

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/gorilla/securecookie"
	"golang.org/x/oauth2"
)

// OIDCConfig names the OpenID Provider the web wallet logs users in with.
// Any standard provider works: the wallet uses discovery, the authorization
// code flow with PKCE (S256), state and nonce.
type OIDCConfig struct {
	Issuer       string
	ClientID     string
	ClientSecret string
	Scopes       []string
	RedirectURL  string
	// UserClaim is the ID token's claim that names the user ("": sub).
	UserClaim string
	// Secret keys the short-lived login cookie (state, nonce, verifier).
	Secret string
	Secure bool
	// HTTPClient talks to the provider (nil: http.DefaultClient).
	HTTPClient *http.Client
	// Log gets one warning when the provider becomes unreachable and one
	// note when it is back (nil: discard).
	Log *slog.Logger
}

// ErrProviderUnreachable is a login that cannot start or finish because
// the OpenID Provider does not answer its discovery: the login service is
// down, not the wallet (503).
var ErrProviderUnreachable = errors.New("the login service is unreachable")

// discoveryRetry is how long a failed discovery is remembered: logins in
// that time fail at once instead of each waiting for the provider.
const discoveryRetry = 5 * time.Second

// OIDCLogin runs the relying-party side of the login. The provider is
// discovered lazily, at the first login, so the wallet starts even when the
// provider is briefly unreachable (or is the built-in one on this server).
type OIDCLogin struct {
	cfg    OIDCConfig
	cookie *securecookie.SecureCookie
	name   string

	mu       sync.Mutex
	provider *oidc.Provider
	endSess  string
	// askOffline: the scopes are the default ones, and offline_access is
	// added where the provider offers it (the refresh token that renews
	// sessions, session_refresh.go); offline is whether it does.
	askOffline, offline bool
	// authStyle is how the client authenticates at the token endpoint,
	// from the provider's token_endpoint_auth_methods_supported. Not
	// auto-detected: that sends a refresh token a second time after any
	// refusal, and reports the second answer.
	authStyle oauth2.AuthStyle
	// failed is when discovery last failed, with its error; zero while the
	// provider answers.
	failed  time.Time
	failErr error
}

// Login is the outcome of a successful login callback.
type Login struct {
	// User is the ID token's user claim (OIDCConfig.UserClaim).
	User string
	Tokens
	// Next is the local path the user wanted before logging in.
	Next string
}

type pendingLogin struct {
	State, Nonce, Verifier, Next string
}

// NewOIDCLogin checks cfg and builds the login flow.
func NewOIDCLogin(cfg OIDCConfig) (*OIDCLogin, error) {
	if cfg.Issuer == "" || cfg.ClientID == "" || cfg.RedirectURL == "" {
		return nil, errors.New("oidc: issuer, client id and redirect url are required")
	}
	askOffline := len(cfg.Scopes) == 0
	if askOffline {
		cfg.Scopes = []string{oidc.ScopeOpenID, "profile"}
	}
	hashKey := sha256.Sum256([]byte("ccwallet login mac\x00" + cfg.Secret))
	blockKey := sha256.Sum256([]byte("ccwallet login enc\x00" + cfg.Secret))
	sc := securecookie.New(hashKey[:], blockKey[:]).MaxAge(600)
	name := "ccwallet_login"
	if cfg.Secure {
		name = "__Host-ccwallet_login"
	}
	return &OIDCLogin{cfg: cfg, cookie: sc, name: name, askOffline: askOffline}, nil
}

func (o *OIDCLogin) ctx(ctx context.Context) context.Context {
	if o.cfg.HTTPClient != nil {
		return oidc.ClientContext(ctx, o.cfg.HTTPClient)
	}
	return ctx
}

func (o *OIDCLogin) discover(ctx context.Context) (*oidc.Provider, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.provider != nil {
		return o.provider, nil
	}
	if !o.failed.IsZero() && time.Since(o.failed) < discoveryRetry {
		return nil, o.failErr
	}
	caller := ctx
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	p, err := oidc.NewProvider(o.ctx(ctx), o.cfg.Issuer)
	if err != nil && caller.Err() != nil {
		return nil, err // the browser left: says nothing about the provider
	}
	if err != nil {
		kind, what := ErrProviderUnreachable, "login service unreachable: OpenID Provider discovery failed"
		if mismatch := new(oidc.IssuerMismatchError); errors.As(err, &mismatch) {
			kind, what = ErrProviderMisconfigured, "login misconfigured: the provider calls itself by another issuer than oidc.issuer (ccwallet config check says more)"
		}
		if o.failed.IsZero() { // once per outage, not once per login
			o.log().Warn(what+"; logins answer 503 until it is fixed", "issuer", o.cfg.Issuer, "err", err)
		}
		o.failed, o.failErr = time.Now(), fmt.Errorf("%w: discovery of %s: %w", kind, o.cfg.Issuer, err)
		return nil, o.failErr
	}
	if !o.failed.IsZero() {
		o.log().Info("login service reachable again", "issuer", o.cfg.Issuer)
		o.failed, o.failErr = time.Time{}, nil
	}
	var extra struct {
		EndSession string   `json:"end_session_endpoint"`
		Scopes     []string `json:"scopes_supported"`
		Auth       []string `json:"token_endpoint_auth_methods_supported"`
	}
	_ = p.Claims(&extra)
	o.provider, o.endSess = p, extra.EndSession
	// The default when unlisted is client_secret_basic (OpenID Connect
	// Discovery §3).
	o.authStyle = oauth2.AuthStyleInHeader
	if len(extra.Auth) > 0 && !slices.Contains(extra.Auth, "client_secret_basic") && slices.Contains(extra.Auth, "client_secret_post") {
		o.authStyle = oauth2.AuthStyleInParams
	}
	o.offline = slices.Contains(extra.Scopes, oidc.ScopeOfflineAccess)
	return p, nil
}

func (o *OIDCLogin) log() *slog.Logger {
	if o.cfg.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.cfg.Log
}

func (o *OIDCLogin) oauth(p *oidc.Provider) *oauth2.Config {
	scopes := o.cfg.Scopes
	if o.askOffline && o.offline {
		scopes = append(slices.Clip(scopes), oidc.ScopeOfflineAccess)
	}
	ep := p.Endpoint()
	ep.AuthStyle = o.authStyle
	return &oauth2.Config{ClientID: o.cfg.ClientID, ClientSecret: o.cfg.ClientSecret, Endpoint: ep,
		RedirectURL: o.cfg.RedirectURL, Scopes: scopes}
}

// Begin redirects the browser to the provider. next is a local path to
// return to after login (anything else becomes "/").
func (o *OIDCLogin) Begin(w http.ResponseWriter, r *http.Request, next string) error {
	p, err := o.discover(r.Context())
	if err != nil {
		return err
	}
	pl := pendingLogin{State: randomToken(), Nonce: randomToken(), Verifier: oauth2.GenerateVerifier(), Next: LocalPath(next)}
	v, err := o.cookie.Encode(o.name, pl)
	if err != nil {
		return fmt.Errorf("encode login cookie: %w", err)
	}
	http.SetCookie(w, &http.Cookie{Name: o.name, Value: v, Path: "/", MaxAge: 600, HttpOnly: true, Secure: o.cfg.Secure, SameSite: http.SameSiteLaxMode})
	u := o.oauth(p).AuthCodeURL(pl.State, oidc.Nonce(pl.Nonce), oauth2.S256ChallengeOption(pl.Verifier))
	http.Redirect(w, r, u, http.StatusFound)
	return nil
}

// ErrLogin is a login callback that must not log anyone in (bad state, a
// provider error, an invalid token): a *LoginRefused (oidc_refusal.go),
// whose Message is for the person.
var ErrLogin = errors.New("login failed")

// Finish handles the provider's redirect back: it checks state, exchanges
// the code with the PKCE verifier, and verifies the ID token (signature via
// the provider's JWKS, issuer, audience = client id, expiry) and its nonce.
func (o *OIDCLogin) Finish(w http.ResponseWriter, r *http.Request) (Login, error) {
	c, err := r.Cookie(o.name)
	if err != nil {
		return Login{}, refused(msgLoginStale, "no login cookie (expired, already used, or cookies off)")
	}
	http.SetCookie(w, &http.Cookie{Name: o.name, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: o.cfg.Secure, SameSite: http.SameSiteLaxMode})
	var pl pendingLogin
	if err := o.cookie.Decode(o.name, c.Value, &pl); err != nil {
		return Login{}, refused(msgLoginStale, "login cookie invalid: %v", err)
	}
	q := r.URL.Query()
	if q.Get("state") == "" || q.Get("state") != pl.State {
		return Login{}, refused(msgLoginOther, "state mismatch")
	}
	if e := q.Get("error"); e != "" {
		return Login{}, providerRefusal(e, q.Get("error_description"))
	}
	p, err := o.discover(r.Context())
	if err != nil {
		return Login{}, err
	}
	ctx := o.ctx(r.Context())
	tok, err := o.oauth(p).Exchange(ctx, q.Get("code"), oauth2.VerifierOption(pl.Verifier))
	if err != nil {
		return Login{}, refused(msgLoginCode, "code exchange: %v", err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return Login{}, refused(msgLoginProof, "the provider sent no ID token")
	}
	idt, err := p.Verifier(&oidc.Config{ClientID: o.cfg.ClientID}).Verify(ctx, raw)
	if err != nil {
		return Login{}, refused(msgLoginProof, "ID token: %v", err)
	}
	if idt.Nonce != pl.Nonce {
		return Login{}, refused(msgLoginProof, "nonce mismatch")
	}
	user, err := o.userOf(idt)
	if errors.Is(err, errNoUserClaim) {
		return Login{}, refused(fmt.Sprintf("Your login at the identity provider does not carry %q, the claim this wallet names its users by, so you are not logged in. Tell the wallet's operator (oidc.userClaim).", o.cfg.UserClaim), "%v", err)
	}
	if err != nil {
		return Login{}, refused("Your login at the identity provider does not say who you are the way this wallet names its users, so you are not logged in. Tell the wallet's operator (oidc.userClaim).", "%v", err)
	}
	return Login{User: user, Tokens: Tokens{IDToken: raw, RefreshToken: tok.RefreshToken, Expiry: tok.Expiry}, Next: LocalPath(pl.Next)}, nil
}

// LogoutURL is the provider's end_session_endpoint with the ID token hint
// and a return address, or "" when the provider has none.
func (o *OIDCLogin) LogoutURL(ctx context.Context, idToken, returnTo string) string {
	if _, err := o.discover(ctx); err != nil || o.endSess == "" {
		return ""
	}
	v := url.Values{"client_id": {o.cfg.ClientID}, "post_logout_redirect_uri": {returnTo}}
	if idToken != "" {
		v.Set("id_token_hint", idToken)
	}
	return o.endSess + "?" + v.Encode()
}
