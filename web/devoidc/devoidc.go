// Package devoidc is the development OpenID Provider of the embedded
// default: an in-memory zitadel/oidc provider with a login form and seeded
// demo users, so a new user can log in to the web wallet with no external
// identity service. It is for development networks only; the wallet turns
// it off outside them.
package devoidc

import (
	"crypto/rand"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/zitadel/oidc/v3/pkg/op"
)

// Prefix is where the provider is mounted on the wallet's server.
const Prefix = "/dev-oidc"

// User is a seeded demo user. Its Name is the ID token's sub.
type User struct {
	Name, Password, Role string
}

// DefaultUsers are the demo users: the validator operator's wallet admin and
// two ordinary users.
var DefaultUsers = []User{
	{Name: "admin", Password: "admin-devnet", Role: "validator operator (wallet admin)"},
	{Name: "alice", Password: "alice-devnet", Role: "user"},
	{Name: "bob", Password: "bob-devnet", Role: "user"},
}

// Config configures the provider.
type Config struct {
	// BaseURL is the wallet's public URL without a trailing slash; the
	// issuer is BaseURL + Prefix.
	BaseURL      string
	ClientID     string
	ClientSecret string
	// RedirectURL is the wallet's login callback; PostLogoutURL where the
	// provider sends the browser after logout.
	RedirectURL   string
	PostLogoutURL string
	// StylesheetURL is the wallet's stylesheet, for a consistent login page.
	StylesheetURL string
	Users         []User
	// PendingTTL is how long a login started at the authorize endpoint
	// may take (default 10 minutes); MaxPending caps the logins pending at
	// once (default 1000), dropping the oldest. Anyone can start a login,
	// so without both the provider's memory grows with every attempt.
	PendingTTL time.Duration
	MaxPending int
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

// Defaults of Config.PendingTTL and Config.MaxPending.
const (
	DefaultPendingTTL = 10 * time.Minute
	DefaultMaxPending = 1000
)

// Provider is the mounted development provider.
type Provider struct {
	cfg     Config
	issuer  string
	storage *storage
	op      *op.Provider
	handler http.Handler
}

// Issuer is the provider's issuer URL.
func (p *Provider) Issuer() string { return p.issuer }

// New builds the provider; mount Handler at Prefix + "/".
func New(cfg Config, log *slog.Logger) (*Provider, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if len(cfg.Users) == 0 {
		cfg.Users = DefaultUsers
	}
	if cfg.PendingTTL <= 0 {
		cfg.PendingTTL = DefaultPendingTTL
	}
	if cfg.MaxPending <= 0 {
		cfg.MaxPending = DefaultMaxPending
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	issuer := strings.TrimSuffix(cfg.BaseURL, "/") + Prefix
	st := newStorage(cfg)
	var key [32]byte
	_, _ = rand.Read(key[:])
	provider, err := op.NewProvider(&op.Config{
		CryptoKey: key, CryptoKeyId: "devnet", CodeMethodS256: true, AuthMethodPost: true,
		DefaultLogoutRedirectURI: cfg.PostLogoutURL,
	}, st, op.StaticIssuer(issuer), op.WithAllowInsecure(), op.WithLogger(log))
	if err != nil {
		return nil, fmt.Errorf("development openid provider: %w", err)
	}
	p := &Provider{cfg: cfg, issuer: issuer, storage: st, op: provider}
	interceptor := op.NewIssuerInterceptor(provider.IssuerFromRequest)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login", p.loginForm)
	mux.Handle("POST /login", interceptor.HandlerFunc(p.checkLogin))
	mux.Handle("/", provider)
	p.handler = http.StripPrefix(Prefix, mux)
	return p, nil
}

// Handler serves the provider (discovery, authorize, token, keys,
// end_session, the login form) under Prefix.
func (p *Provider) Handler() http.Handler { return p.handler }

type loginPage struct {
	ID, Error, Stylesheet string
	Users                 []User
}

var loginTmpl = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Development login — ccwallet</title>{{if .Stylesheet}}<link rel="stylesheet" href="{{.Stylesheet}}">{{end}}</head>
<body><main class="narrow">
<h1>Development identity provider</h1>
<p class="notice" data-testid="dev-provider-notice">This is the wallet's built-in <strong>development</strong> OpenID Provider.
It runs only on a development network and must never be used for real funds.</p>
{{if .Error}}<p class="error" role="alert" data-testid="login-error">{{.Error}}</p>{{end}}
<form method="post" action="` + Prefix + `/login" data-testid="dev-login-form">
<input type="hidden" name="id" value="{{.ID}}">
<label for="username">User name</label><input id="username" name="username" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit" data-testid="dev-login-submit">Log in</button>
</form>
<h2>Demo users</h2>
<table data-testid="dev-users"><thead><tr><th scope="col">User</th><th scope="col">Password</th><th scope="col">Role</th></tr></thead><tbody>
{{range .Users}}<tr><td><code>{{.Name}}</code></td><td><code>{{.Password}}</code></td><td>{{.Role}}</td></tr>{{end}}
</tbody></table>
</main></body></html>`))

func (p *Provider) render(w http.ResponseWriter, status int, id, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = loginTmpl.Execute(w, loginPage{ID: id, Error: msg, Stylesheet: p.cfg.StylesheetURL, Users: p.cfg.Users})
}

func (p *Provider) loginForm(w http.ResponseWriter, r *http.Request) {
	p.render(w, http.StatusOK, r.URL.Query().Get("authRequestID"), "")
}

func (p *Provider) checkLogin(w http.ResponseWriter, r *http.Request) {
	id := r.PostFormValue("id")
	if err := p.storage.CheckUsernamePassword(r.PostFormValue("username"), r.PostFormValue("password"), id); err != nil {
		p.render(w, http.StatusUnprocessableEntity, id, "Wrong user name or password.")
		return
	}
	http.Redirect(w, r, op.AuthCallbackURL(p.op)(r.Context(), id), http.StatusFound)
}
