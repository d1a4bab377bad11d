package main

import (
	"errors"
	"strings"
	"time"
)

// check is the one validation `serve` and `config check` both run, so
// the check cannot approve what serve refuses (issue 21): validate's keys,
// then what serve would otherwise only find while starting (the TLS files,
// the web wallet's login settings), then production rules. Errors refuse
// the start; warnings are settings that work but weaken security, which
// serve logs at every start, `config check` prints, and admins see on
// /readyz and the admin page.
func (c Config) check(now time.Time, env envVars) (warnings []string, err error) {
	var errs []error
	if err := c.validate(now, env); err != nil {
		errs = append(errs, err)
	}
	// Load the files of every listener's TLS too: a key that is not
	// PKCS#8 is found now, not at the next restart.
	for _, t := range []*TLSConfig{c.TLS, c.HealthTLS, c.Metrics.TLS, c.LedgerAPITLS} {
		if len(errs) == 0 && t != nil {
			if _, err := appTLS(t).Build(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	production := c.Network == "production"
	if production && c.disableAuthByEnv {
		// One variable left over from development must not turn off
		// authentication in production: it takes the values file.
		errs = append(errs, errors.New("disableAuth: in production, turning authentication off takes disableAuth: true in the values file, not WALLET_DISABLE_AUTH alone"))
	}
	if c.DisableAuth {
		warnings = append(warnings, "disableAuth: authentication is OFF: the JSON API accepts any bearer token, signed or not (alg none included), "+
			"and believes its sub, so anyone can act as any user, admins included; never use this where others can reach the wallet")
	} else if c.Auth.Issuer == "" && (production || c.Auth.JWKSURL != "") {
		warnings = append(warnings, "auth.issuer: not set, so tokens from any issuer are accepted when a key of the JWKS signed them; "+
			"set it to your identity provider's issuer")
	}
	warnings, errs = c.checkLocalNet(warnings, errs) // localnet.go
	if c.WalletEnabled() {
		oc, err := c.oidcSettings(env.get)
		if err != nil {
			errs = append(errs, err)
		}
		plainHTTP := c.TLS == nil && !strings.HasPrefix(c.PublicURL, "https://")
		switch {
		case production && !oc.SecureCookies && plainHTTP:
			warnings = append(warnings, "oidc.secureCookies: off and the wallet is served over plain HTTP (no tls block, publicUrl not https): "+
				"session cookies cross the network unencrypted and can be stolen; serve HTTPS (tls or a TLS proxy with an https publicUrl) and set oidc.secureCookies: true")
		case production && !oc.SecureCookies:
			warnings = append(warnings, "oidc.secureCookies: off, so session cookies are not marked Secure and a browser also sends them over plain HTTP; set oidc.secureCookies: true")
		case oc.SecureCookies && plainHTTP:
			warnings = append(warnings, "oidc.secureCookies: on, but the wallet is served over plain HTTP (no tls block, publicUrl not https): "+
				"browsers do not send Secure cookies back over HTTP, so logins fail; set an https publicUrl when a TLS proxy is in front")
		}
	}
	return warnings, errors.Join(errs...)
}

// checked is read plus check; extra applies command-specific flags first.
func (c *commonFlags) checked(env envVars, extra func(*Config)) (Config, []string, error) {
	cfg, err := c.read(env)
	if err != nil {
		return cfg, nil, err
	}
	if extra != nil {
		extra(&cfg)
	}
	warnings, err := cfg.check(time.Now(), env)
	if err != nil {
		return cfg, warnings, invalidConfig(err)
	}
	return cfg, warnings, nil
}
