package web

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
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
	// failed is when discovery last failed, with its error; zero while the
	// provider answers.
	failed  time.Time
	failErr error
}

// Login is the outcome of a successful login callback.
type Login struct {
	Subject string
	IDToken string
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
	if len(cfg.Scopes) == 0 {
		cfg.Scopes = []string{oidc.ScopeOpenID, "profile"}
	}
	hashKey := sha256.Sum256([]byte("ccwallet login mac\x00" + cfg.Secret))
	blockKey := sha256.Sum256([]byte("ccwallet login enc\x00" + cfg.Secret))
	sc := securecookie.New(hashKey[:], blockKey[:]).MaxAge(600)
	name := "ccwallet_login"
	if cfg.Secure {
		name = "__Host-ccwallet_login"
	}
	return &OIDCLogin{cfg: cfg, cookie: sc, name: name}, nil
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
		if o.failed.IsZero() { // once per outage, not once per login
			o.log().Warn("login service unreachable: OpenID Provider discovery failed; logins answer 503 until it is back",
				"issuer", o.cfg.Issuer, "err", err)
		}
		o.failed, o.failErr = time.Now(), fmt.Errorf("%w: discovery of %s: %w", ErrProviderUnreachable, o.cfg.Issuer, err)
		return nil, o.failErr
	}
	if !o.failed.IsZero() {
		o.log().Info("login service reachable again", "issuer", o.cfg.Issuer)
		o.failed, o.failErr = time.Time{}, nil
	}
	var extra struct {
		EndSession string `json:"end_session_endpoint"`
	}
	_ = p.Claims(&extra)
	o.provider, o.endSess = p, extra.EndSession
	return p, nil
}

func (o *OIDCLogin) log() *slog.Logger {
	if o.cfg.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.cfg.Log
}

func (o *OIDCLogin) oauth(p *oidc.Provider) *oauth2.Config {
	return &oauth2.Config{ClientID: o.cfg.ClientID, ClientSecret: o.cfg.ClientSecret, Endpoint: p.Endpoint(),
		RedirectURL: o.cfg.RedirectURL, Scopes: o.cfg.Scopes}
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
// provider error, an invalid token). Its message is safe to show.
var ErrLogin = errors.New("login failed")

// Finish handles the provider's redirect back: it checks state, exchanges
// the code with the PKCE verifier, and verifies the ID token (signature via
// the provider's JWKS, issuer, audience = client id, expiry) and its nonce.
func (o *OIDCLogin) Finish(w http.ResponseWriter, r *http.Request) (Login, error) {
	c, err := r.Cookie(o.name)
	if err != nil {
		return Login{}, fmt.Errorf("%w: the login took too long or cookies are off; try again", ErrLogin)
	}
	http.SetCookie(w, &http.Cookie{Name: o.name, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: o.cfg.Secure, SameSite: http.SameSiteLaxMode})
	var pl pendingLogin
	if err := o.cookie.Decode(o.name, c.Value, &pl); err != nil {
		return Login{}, fmt.Errorf("%w: the login cookie is invalid; try again", ErrLogin)
	}
	q := r.URL.Query()
	if e := q.Get("error"); e != "" {
		return Login{}, fmt.Errorf("%w: the provider answered %q", ErrLogin, e)
	}
	if q.Get("state") == "" || q.Get("state") != pl.State {
		return Login{}, fmt.Errorf("%w: state mismatch", ErrLogin)
	}
	p, err := o.discover(r.Context())
	if err != nil {
		return Login{}, err
	}
	ctx := o.ctx(r.Context())
	tok, err := o.oauth(p).Exchange(ctx, q.Get("code"), oauth2.VerifierOption(pl.Verifier))
	if err != nil {
		return Login{}, fmt.Errorf("%w: code exchange: %v", ErrLogin, err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return Login{}, fmt.Errorf("%w: the provider sent no ID token", ErrLogin)
	}
	idt, err := p.Verifier(&oidc.Config{ClientID: o.cfg.ClientID}).Verify(ctx, raw)
	if err != nil {
		return Login{}, fmt.Errorf("%w: ID token: %v", ErrLogin, err)
	}
	if idt.Nonce != pl.Nonce {
		return Login{}, fmt.Errorf("%w: nonce mismatch", ErrLogin)
	}
	if idt.Subject == "" {
		return Login{}, fmt.Errorf("%w: ID token without subject", ErrLogin)
	}
	return Login{Subject: idt.Subject, IDToken: raw, Next: LocalPath(pl.Next)}, nil
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
