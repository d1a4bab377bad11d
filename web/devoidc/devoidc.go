// Package devoidc is the development OpenID Provider of the embedded
// default: an in-memory zitadel/oidc provider with a login form and seeded
// demo users, so a new user can log in to the web wallet with no external
// identity service. It is for development networks only; the wallet turns
// it off outside them.
package devoidc

import (
	"context"
	"crypto/rand"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
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
	storage *devStorage
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
	users := userStore{}
	for _, u := range cfg.Users {
		users[u.Name] = &storage.User{ID: u.Name, Username: u.Name, Password: u.Password, FirstName: u.Name, EmailVerified: true}
	}
	client := storage.WebClient(cfg.ClientID, cfg.ClientSecret, cfg.RedirectURL)
	st := &devStorage{Storage: storage.NewStorageWithClients(users, map[string]*storage.Client{cfg.ClientID: client}), postLogout: cfg.PostLogoutURL,
		pending: newPending(cfg.PendingTTL, cfg.MaxPending, cfg.Now), clientID: cfg.ClientID,
		access: newPending(accessTokenTTL, maxTokens, cfg.Now), refresh: newPending(refreshTokenTTL, maxTokens, cfg.Now)}
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

// Pending is the number of logins started and not yet finished, expired
// or dropped.
func (p *Provider) Pending() int { return p.storage.pending.len() }

// userStore is the seeded users by name; storage.UserStore.
type userStore map[string]*storage.User

func (u userStore) GetUserByID(id string) *storage.User         { return u[id] }
func (u userStore) GetUserByUsername(name string) *storage.User { return u[name] }
func (u userStore) ExampleClientID() string                     { return "" }

// devStorage is the library's in-memory storage with our login page and
// post-logout address on the client, and its pending auth requests bounded
// (the library keeps each one until its code is exchanged, so an
// abandoned login stayed forever).
type devStorage struct {
	*storage.Storage
	postLogout string
	pending    *pending
	// access and refresh are the tokens issued to clientID, revoked once
	// past their lifetime: the library checks expiry on use but never
	// deletes them.
	clientID        string
	access, refresh *pending
}

// The library's token lifetimes (storage.go: 5 minutes, 5 hours), with a
// margin, and a cap on the tokens kept at once.
const (
	accessTokenTTL  = 6 * time.Minute
	refreshTokenTTL = 5*time.Hour + time.Minute
	maxTokens       = 10000
)

func (s *devStorage) CreateAccessToken(ctx context.Context, req op.TokenRequest) (string, time.Time, error) {
	s.revoke(ctx, s.access.expired())
	id, exp, err := s.Storage.CreateAccessToken(ctx, req)
	if err == nil {
		s.revoke(ctx, s.access.add(id))
	}
	return id, exp, err
}

func (s *devStorage) CreateAccessAndRefreshTokens(ctx context.Context, req op.TokenRequest, current string) (string, string, time.Time, error) {
	s.revoke(ctx, s.access.expired())
	s.revoke(ctx, s.refresh.expired())
	id, refresh, exp, err := s.Storage.CreateAccessAndRefreshTokens(ctx, req, current)
	if err == nil {
		s.revoke(ctx, s.access.add(id))
		s.refresh.remove(current) // rotated: the library dropped it
		s.revoke(ctx, s.refresh.add(refresh))
	}
	return id, refresh, exp, err
}

// revoke deletes tokens (an access token by ID, a refresh token with its
// access token); unknown ones are no error.
func (s *devStorage) revoke(ctx context.Context, ids []string) {
	for _, id := range ids {
		_ = s.Storage.RevokeToken(ctx, id, "", s.clientID)
	}
}

func (s *devStorage) CreateAuthRequest(ctx context.Context, req *oidc.AuthRequest, userID string) (op.AuthRequest, error) {
	s.expire(ctx)
	ar, err := s.Storage.CreateAuthRequest(ctx, req, userID)
	if err != nil {
		return nil, err
	}
	for _, id := range s.pending.add(ar.GetID()) {
		_ = s.Storage.DeleteAuthRequest(ctx, id)
	}
	return ar, nil
}

func (s *devStorage) AuthRequestByID(ctx context.Context, id string) (op.AuthRequest, error) {
	s.expire(ctx)
	return s.Storage.AuthRequestByID(ctx, id)
}

func (s *devStorage) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	s.expire(ctx)
	return s.Storage.AuthRequestByCode(ctx, code)
}

func (s *devStorage) DeleteAuthRequest(ctx context.Context, id string) error {
	s.pending.remove(id)
	return s.Storage.DeleteAuthRequest(ctx, id)
}

// CheckUsernamePassword is the login form's check of a pending request.
func (s *devStorage) CheckUsernamePassword(username, password, id string) error {
	s.expire(context.Background())
	return s.Storage.CheckUsernamePassword(username, password, id)
}

// expire deletes the auth requests past their time (and their codes).
func (s *devStorage) expire(ctx context.Context) {
	for _, id := range s.pending.expired() {
		_ = s.Storage.DeleteAuthRequest(ctx, id)
	}
}

func (s *devStorage) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	c, err := s.Storage.GetClientByClientID(ctx, id)
	if err != nil {
		return nil, err
	}
	return devClient{Client: c, postLogout: s.postLogout}, nil
}

type devClient struct {
	op.Client
	postLogout string
}

func (c devClient) LoginURL(id string) string { return Prefix + "/login?authRequestID=" + id }

func (c devClient) PostLogoutRedirectURIs() []string { return []string{c.postLogout} }

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
