package devoidc

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/subtle"
	"errors"
	"fmt"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// storage is the provider's op.Storage, in memory: the seeded users, one
// client (the wallet), the logins in progress and the access tokens issued.
// It serves the authorization code flow with PKCE that the wallet runs,
// userinfo and logout; refresh tokens, token exchange, introspection and
// the JWT profile grant are refused, as the wallet uses none of them.
type storage struct {
	now    func() time.Time
	users  map[string]User
	client devClient
	key    *signingKey

	mu       sync.Mutex
	requests map[string]*authRequest // by ID, while pending
	codes    map[string]string       // auth code -> request ID
	tokens   map[string]accessToken  // by ID
	// pending and access order the requests and tokens by age, so the
	// expired and the oldest past the cap are dropped without a scan:
	// anyone can start a login, so without them memory grows with every
	// attempt.
	pending, access *pending
}

// The access token lifetime (as the library's example had it) and the
// cap on the tokens kept at once.
const (
	accessTokenTTL = 5 * time.Minute
	maxTokens      = 10000
)

var (
	_ op.Storage                   = (*storage)(nil)
	_ op.CanSetUserinfoFromRequest = (*storage)(nil)
)

func newStorage(cfg Config) *storage {
	users := make(map[string]User, len(cfg.Users))
	for _, u := range cfg.Users {
		users[u.Name] = u
	}
	return &storage{
		now: cfg.Now, users: users, key: newSigningKey(),
		client:   devClient{id: cfg.ClientID, secret: cfg.ClientSecret, redirect: cfg.RedirectURL, postLogout: cfg.PostLogoutURL},
		requests: map[string]*authRequest{}, codes: map[string]string{}, tokens: map[string]accessToken{},
		pending: newPending(cfg.PendingTTL, cfg.MaxPending, cfg.Now), access: newPending(accessTokenTTL, maxTokens, cfg.Now),
	}
}

var errNotFound = errors.New("not found")

// authRequest is a login in progress: the authorize request and, once the
// login form accepted a password, who logged in and when.
type authRequest struct {
	id            string
	clientID      string
	redirectURI   string
	state, nonce  string
	scopes        []string
	responseType  oidc.ResponseType
	responseMode  oidc.ResponseMode
	codeChallenge *oidc.CodeChallenge
	subject       string
	authTime      time.Time
	done          bool
	code          string
}

func (a *authRequest) GetID() string                         { return a.id }
func (a *authRequest) GetACR() string                        { return "" }
func (a *authRequest) GetAudience() []string                 { return []string{a.clientID} }
func (a *authRequest) GetAuthTime() time.Time                { return a.authTime }
func (a *authRequest) GetClientID() string                   { return a.clientID }
func (a *authRequest) GetCodeChallenge() *oidc.CodeChallenge { return a.codeChallenge }
func (a *authRequest) GetNonce() string                      { return a.nonce }
func (a *authRequest) GetRedirectURI() string                { return a.redirectURI }
func (a *authRequest) GetResponseType() oidc.ResponseType    { return a.responseType }
func (a *authRequest) GetResponseMode() oidc.ResponseMode    { return a.responseMode }
func (a *authRequest) GetScopes() []string                   { return a.scopes }
func (a *authRequest) GetState() string                      { return a.state }
func (a *authRequest) GetSubject() string                    { return a.subject }
func (a *authRequest) Done() bool                            { return a.done }

func (a *authRequest) GetAMR() []string {
	if a.done {
		return []string{"pwd"}
	}
	return nil
}

type accessToken struct {
	clientID, subject string
	scopes            []string
	expires           time.Time
}

func (s *storage) CreateAuthRequest(_ context.Context, req *oidc.AuthRequest, userID string) (op.AuthRequest, error) {
	if len(req.Prompt) == 1 && req.Prompt[0] == oidc.PromptNone {
		return nil, oidc.ErrLoginRequired() // nobody is logged in here without the form
	}
	ar := &authRequest{id: rand.Text(), clientID: req.ClientID, redirectURI: req.RedirectURI, state: req.State, nonce: req.Nonce,
		scopes: req.Scopes, responseType: req.ResponseType, responseMode: req.ResponseMode, subject: userID}
	if req.CodeChallenge != "" {
		// The method passes through, so an unsupported one is refused
		// rather than verified as plain.
		ar.codeChallenge = &oidc.CodeChallenge{Challenge: req.CodeChallenge, Method: req.CodeChallengeMethod}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expireLocked()
	s.requests[ar.id] = ar
	for _, id := range s.pending.add(ar.id) {
		s.deleteRequestLocked(id)
	}
	c := *ar
	return &c, nil
}

// AuthRequestByID returns a copy, so the login form's update of a request
// does not race with the library reading it.
func (s *storage) AuthRequestByID(_ context.Context, id string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expireLocked()
	ar, ok := s.requests[id]
	if !ok {
		return nil, fmt.Errorf("auth request %w", errNotFound)
	}
	c := *ar
	return &c, nil
}

func (s *storage) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	s.mu.Lock()
	id, ok := s.codes[code]
	s.mu.Unlock()
	if !ok {
		return nil, errors.New("code invalid or expired")
	}
	return s.AuthRequestByID(ctx, id)
}

func (s *storage) SaveAuthCode(_ context.Context, id, code string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ar, ok := s.requests[id]
	if !ok {
		return fmt.Errorf("auth request %w", errNotFound)
	}
	delete(s.codes, ar.code)
	ar.code = code
	s.codes[code] = id
	return nil
}

func (s *storage) DeleteAuthRequest(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending.remove(id)
	s.deleteRequestLocked(id)
	return nil
}

func (s *storage) deleteRequestLocked(id string) {
	if ar, ok := s.requests[id]; ok {
		delete(s.codes, ar.code)
		delete(s.requests, id)
	}
}

// expireLocked deletes the requests past their time (and their codes).
func (s *storage) expireLocked() {
	for _, id := range s.pending.expired() {
		s.deleteRequestLocked(id)
	}
}

// CheckUsernamePassword is the login form's check of a pending request.
func (s *storage) CheckUsernamePassword(username, password, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expireLocked()
	ar, ok := s.requests[id]
	if !ok {
		return fmt.Errorf("auth request %w", errNotFound)
	}
	u, ok := s.users[username]
	if !ok || subtle.ConstantTimeCompare([]byte(u.Password), []byte(password)) != 1 {
		return errors.New("wrong user name or password")
	}
	ar.subject, ar.done, ar.authTime = u.Name, true, s.now()
	return nil
}

// CreateAccessToken issues an access token, first revoking the ones past
// their lifetime and, at the cap, the oldest.
func (s *storage) CreateAccessToken(_ context.Context, req op.TokenRequest) (string, time.Time, error) {
	var clientID string
	if ar, ok := req.(*authRequest); ok {
		clientID = ar.clientID
	}
	id, exp := rand.Text(), s.now().Add(accessTokenTTL)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, old := range s.access.expired() {
		delete(s.tokens, old)
	}
	for _, old := range s.access.add(id) {
		delete(s.tokens, old)
	}
	s.tokens[id] = accessToken{clientID: clientID, subject: req.GetSubject(), scopes: req.GetScopes(), expires: exp}
	return id, exp, nil
}

var errRefresh = errors.New("the development provider issues no refresh tokens")

func (s *storage) CreateAccessAndRefreshTokens(context.Context, op.TokenRequest, string) (string, string, time.Time, error) {
	return "", "", time.Time{}, errRefresh
}

func (s *storage) TokenRequestByRefreshToken(context.Context, string) (op.RefreshTokenRequest, error) {
	return nil, errRefresh
}

func (s *storage) GetRefreshTokenInfo(context.Context, string, string) (string, string, error) {
	return "", "", op.ErrInvalidRefreshToken
}

// TerminateSession is logout: the user's tokens for the client go.
func (s *storage) TerminateSession(_ context.Context, userID, clientID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, t := range s.tokens {
		if t.subject == userID && t.clientID == clientID {
			delete(s.tokens, id)
			s.access.remove(id)
		}
	}
	return nil
}

// RevokeToken deletes an access token; an unknown one is already not
// valid, so no error.
func (s *storage) RevokeToken(_ context.Context, id, _, clientID string) *oidc.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[id]
	if !ok {
		return nil
	}
	if t.clientID != clientID {
		return oidc.ErrInvalidClient().WithDescription("token was not issued for this client")
	}
	delete(s.tokens, id)
	s.access.remove(id)
	return nil
}

func (s *storage) SigningKey(context.Context) (op.SigningKey, error) {
	if _, err := s.key.get(); err != nil {
		return nil, err
	}
	return s.key, nil
}

func (s *storage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

func (s *storage) KeySet(context.Context) ([]op.Key, error) {
	if _, err := s.key.get(); err != nil {
		return nil, err
	}
	return []op.Key{publicKey{s.key}}, nil
}

func (s *storage) GetClientByClientID(_ context.Context, id string) (op.Client, error) {
	if id != s.client.id {
		return nil, fmt.Errorf("client %w", errNotFound)
	}
	return s.client, nil
}

func (s *storage) AuthorizeClientIDSecret(_ context.Context, id, secret string) error {
	if id != s.client.id || subtle.ConstantTimeCompare([]byte(secret), []byte(s.client.secret)) != 1 {
		return errors.New("wrong client id or secret")
	}
	return nil
}

// SetUserinfoFromScopes is deprecated in the library, which calls
// SetUserinfoFromRequest instead.
func (s *storage) SetUserinfoFromScopes(context.Context, *oidc.UserInfo, string, string, []string) error {
	return nil
}

// SetUserinfoFromRequest fills the ID token's claims.
func (s *storage) SetUserinfoFromRequest(_ context.Context, info *oidc.UserInfo, req op.IDTokenRequest, scopes []string) error {
	return s.userinfo(info, req.GetSubject(), scopes)
}

// SetUserinfoFromToken is the userinfo endpoint.
func (s *storage) SetUserinfoFromToken(_ context.Context, info *oidc.UserInfo, tokenID, _, _ string) error {
	s.mu.Lock()
	t, ok := s.tokens[tokenID]
	s.mu.Unlock()
	if !ok || !s.now().Before(t.expires) {
		return errors.New("token is invalid or has expired")
	}
	return s.userinfo(info, t.subject, t.scopes)
}

func (s *storage) userinfo(info *oidc.UserInfo, userID string, scopes []string) error {
	u, ok := s.users[userID]
	if !ok {
		return fmt.Errorf("user %w", errNotFound)
	}
	for _, scope := range scopes {
		switch scope {
		case oidc.ScopeOpenID:
			info.Subject = u.Name
		case oidc.ScopeProfile:
			info.PreferredUsername, info.Name, info.GivenName = u.Name, u.Name, u.Name
		}
	}
	return nil
}

var errUnsupported = errors.New("not supported by the development provider")

func (s *storage) SetIntrospectionFromToken(context.Context, *oidc.IntrospectionResponse, string, string, string) error {
	return errUnsupported
}

func (s *storage) GetPrivateClaimsFromScopes(context.Context, string, string, []string) (map[string]any, error) {
	return nil, nil
}

func (s *storage) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errUnsupported
}

func (s *storage) ValidateJWTProfileScopes(context.Context, string, []string) ([]string, error) {
	return nil, errUnsupported
}

func (s *storage) Health(context.Context) error { return nil }

// signingKey signs ID tokens; it lives as long as the process, so a
// restart logs everyone out of the provider. It is made in the background
// (newSigningKey) and waited for where it is first used (get): an RSA key
// takes 20-220 ms to find on a 2-core Xeon, once per provider, which the
// start of `serve --localnet` (two providers) spent before it was ready.
type signingKey struct {
	id  string
	get func() (*rsa.PrivateKey, error) // the key, once made; callers wait
}

// newSigningKey starts making a signing key.
func newSigningKey() *signingKey {
	k := &signingKey{id: rand.Text(), get: sync.OnceValues(func() (*rsa.PrivateKey, error) {
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return nil, fmt.Errorf("development openid provider: signing key: %w", err)
		}
		return key, nil
	})}
	go k.get()
	return k
}

func (k *signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k *signingKey) Key() any                                    { key, _ := k.get(); return key }
func (k *signingKey) ID() string                                  { return k.id }

// publicKey is the signing key as the keys endpoint publishes it.
type publicKey struct{ k *signingKey }

func (p publicKey) ID() string                         { return p.k.id }
func (p publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (p publicKey) Use() string                        { return "sig" }
func (p publicKey) Key() any                           { key, _ := p.k.get(); return &key.PublicKey }

// devClient is the wallet: a confidential web client of the code flow,
// with our login page and post-logout address. DevMode lets its redirect
// be plain http on a development network.
type devClient struct {
	id, secret, redirect, postLogout string
}

func (c devClient) GetID() string                       { return c.id }
func (c devClient) RedirectURIs() []string              { return []string{c.redirect} }
func (c devClient) PostLogoutRedirectURIs() []string    { return []string{c.postLogout} }
func (c devClient) ApplicationType() op.ApplicationType { return op.ApplicationTypeWeb }
func (c devClient) AuthMethod() oidc.AuthMethod         { return oidc.AuthMethodBasic }
func (c devClient) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c devClient) GrantTypes() []oidc.GrantType        { return []oidc.GrantType{oidc.GrantTypeCode} }
func (c devClient) LoginURL(id string) string           { return Prefix + "/login?authRequestID=" + id }
func (c devClient) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeBearer }
func (c devClient) IDTokenLifetime() time.Duration      { return time.Hour }
func (c devClient) DevMode() bool                       { return true }
func (c devClient) IsScopeAllowed(string) bool          { return false }
func (c devClient) ClockSkew() time.Duration            { return 0 }

func (c devClient) IDTokenUserinfoClaimsAssertion() bool { return false }

func (c devClient) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}

func (c devClient) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
