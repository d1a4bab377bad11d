package web

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/sessions"
)

// DevSessionSecret is the session secret of the embedded default. It is
// public (it is in the source), so the wallet refuses to start with it on a
// production network.
const DevSessionSecret = "ccwallet-development-session-secret-do-not-use-in-production"

// Session timeouts of the web wallet.
const (
	DefaultIdleTimeout     = 30 * time.Minute
	DefaultAbsoluteTimeout = 12 * time.Hour
)

// SessionConfig configures the web wallet's login sessions.
type SessionConfig struct {
	// Secret keys the cookie's MAC and encryption.
	Secret string
	// Secure marks the cookie Secure and gives it the __Host- prefix; set it
	// when the wallet is served over TLS (directly or behind a proxy).
	Secure          bool
	IdleTimeout     time.Duration
	AbsoluteTimeout time.Duration
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
	// Refresher renews a session's tokens at the provider before they
	// expire (session_refresh.go); nil: sessions live by their timeouts
	// alone.
	Refresher Refresher
	// Store keeps the live sessions; nil keeps them in this process's
	// memory. Replicas behind one load balancer need a shared store (the
	// database), or a login on one is refused by the others.
	Store SessionStore
}

// SessionStore keeps the live sessions server-side: what makes logout
// final and timeouts enforceable, since a cookie's MAC stays valid.
type SessionStore interface {
	// PutSession stores a new session.
	PutSession(ctx context.Context, s Session) error
	// GetSession returns a live session, or ErrNoSession.
	GetSession(ctx context.Context, id string) (Session, error)
	// TouchSession records activity at seen.
	TouchSession(ctx context.Context, id string, seen time.Time) error
	// UpdateSessionTokens records a refresh's tokens.
	UpdateSessionTokens(ctx context.Context, id string, t Tokens) error
	// DeleteSession ends a session; ending an unknown one is no error.
	DeleteSession(ctx context.Context, id string) error
	// PruneSessions drops sessions idle since before idleBefore or created
	// before createdBefore.
	PruneSessions(ctx context.Context, idleBefore, createdBefore time.Time) error
}

// touchEvery limits how often a session's activity is written: the idle
// timeout is 30 minutes, so a minute's precision costs nothing and saves a
// write per page view.
const touchEvery = time.Minute

// Session is one logged-in browser.
type Session struct {
	ID      string
	User    string
	CSRF    string
	Created time.Time
	Seen    time.Time
	// IDToken is the provider's ID token, kept server-side for the logout
	// hint (it never goes into the cookie).
	IDToken string
	// RefreshToken is the provider's refresh token sealed with the
	// session secret (Sessions.seal), the form the store keeps; "" when
	// the provider gave none. TokenExpiry is when the access token it last
	// got expires (zero: unknown, never refreshed).
	RefreshToken string
	TokenExpiry  time.Time
	// ActAs is the party an admin chose to view the wallet as ("view
	// as", a development network's impersonation), "" for their own. It
	// lives in the encrypted, authenticated cookie; the handlers check it
	// with the ledger on every request, so a stale one (the admin right
	// gone, a production network) is refused, not obeyed.
	ActAs string
}

// Sessions keeps login sessions in an encrypted, authenticated cookie
// (gorilla/sessions) and the list of live sessions in a SessionStore. The
// list is what makes logout final: a copied cookie of an ended session is
// refused even though its MAC is still valid.
type Sessions struct {
	store *sessions.CookieStore
	name  string
	cfg   SessionConfig
	live  SessionStore
	*renewal
}

// memorySessions is the in-process SessionStore. A restart empties it,
// which logs everybody out; that is the safe side.
type memorySessions struct {
	mu   sync.Mutex
	live map[string]Session
}

func (m *memorySessions) PutSession(_ context.Context, s Session) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.live[s.ID] = s
	return nil
}

func (m *memorySessions) GetSession(_ context.Context, id string) (Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.live[id]
	if !ok {
		return Session{}, ErrNoSession
	}
	return s, nil
}

func (m *memorySessions) TouchSession(_ context.Context, id string, seen time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.live[id]; ok {
		s.Seen = seen
		m.live[id] = s
	}
	return nil
}

func (m *memorySessions) UpdateSessionTokens(_ context.Context, id string, t Tokens) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.live[id]; ok {
		s.IDToken, s.RefreshToken, s.TokenExpiry = t.IDToken, t.RefreshToken, t.Expiry
		m.live[id] = s
	}
	return nil
}

func (m *memorySessions) DeleteSession(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.live, id)
	return nil
}

func (m *memorySessions) PruneSessions(_ context.Context, idleBefore, createdBefore time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, s := range m.live {
		if s.Seen.Before(idleBefore) || s.Created.Before(createdBefore) {
			delete(m.live, id)
		}
	}
	return nil
}

// ErrNoSession means the request carries no live session.
var ErrNoSession = errors.New("no live session")

// ErrLoginEnded is a session the provider no longer backs: it refused to
// renew the session's tokens (the refresh token revoked, consent
// withdrawn, the user deleted), so the session ended. It wraps
// ErrNoSession.
var ErrLoginEnded = fmt.Errorf("%w: your login has ended at the identity provider", ErrNoSession)

// MinSessionSecret is the shortest session secret NewSessions takes.
const MinSessionSecret = 32

// NewSessions builds the session manager.
func NewSessions(cfg SessionConfig) (*Sessions, error) {
	if len(cfg.Secret) < MinSessionSecret {
		return nil, fmt.Errorf("session secret: must be at least %d characters", MinSessionSecret)
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.AbsoluteTimeout <= 0 {
		cfg.AbsoluteTimeout = DefaultAbsoluteTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	hashKey := sha256.Sum256([]byte("ccwallet session mac\x00" + cfg.Secret))
	blockKey := sha256.Sum256([]byte("ccwallet session enc\x00" + cfg.Secret))
	st := sessions.NewCookieStore(hashKey[:], blockKey[:])
	st.Options = &sessions.Options{
		Path: "/", MaxAge: int(cfg.AbsoluteTimeout / time.Second),
		HttpOnly: true, Secure: cfg.Secure, SameSite: http.SameSiteLaxMode,
	}
	st.MaxAge(int(cfg.AbsoluteTimeout / time.Second))
	name := "ccwallet_session"
	if cfg.Secure {
		// __Host-: only set over HTTPS, for path /, without Domain, so a
		// sibling subdomain cannot plant or read it.
		name = "__Host-ccwallet_session"
	}
	live := cfg.Store
	if live == nil {
		live = &memorySessions{live: map[string]Session{}}
	}
	return &Sessions{store: st, name: name, cfg: cfg, live: live, renewal: newRenewal(cfg.Secret)}, nil
}

// Start begins a new session for user with the provider's tokens (always a
// fresh ID, so a session fixed before login is never promoted) and sets the
// cookie.
func (s *Sessions) Start(w http.ResponseWriter, r *http.Request, user string, tok Tokens) (*Session, error) {
	now := s.cfg.Now()
	sess := &Session{ID: randomToken(), User: user, CSRF: randomToken(), Created: now, Seen: now, IDToken: tok.IDToken,
		RefreshToken: s.seal(tok.RefreshToken), TokenExpiry: tok.Expiry}
	ctx := r.Context()
	if err := s.live.PruneSessions(ctx, now.Add(-s.cfg.IdleTimeout), now.Add(-s.cfg.AbsoluteTimeout)); err != nil {
		return nil, fmt.Errorf("prune sessions: %w", err)
	}
	if err := s.live.PutSession(ctx, *sess); err != nil {
		return nil, fmt.Errorf("store session: %w", err)
	}
	return sess, s.write(w, r, sess)
}

func (s *Sessions) write(w http.ResponseWriter, r *http.Request, sess *Session) error {
	c, _ := s.store.New(r, s.name) // a bad old cookie just gives a new session
	c.Values["sid"] = sess.ID
	c.Values["user"] = sess.User
	c.Values["created"] = sess.Created.Unix()
	// New decodes the request's cookie, if any: what is not set here
	// must be removed, not left over.
	if sess.ActAs != "" {
		c.Values["act_as"] = sess.ActAs
	} else {
		delete(c.Values, "act_as")
	}
	return c.Save(r, w)
}

// SetActAs rewrites the session's cookie to view the wallet as party ("" to
// stop). The session stays the same (ID, CSRF token, timeouts).
func (s *Sessions) SetActAs(w http.ResponseWriter, r *http.Request, sess *Session, party string) error {
	sess.ActAs = party
	return s.write(w, r, sess)
}

// Load returns the request's live session, refreshing its idle timer. A
// session past its idle or absolute timeout, or ended by logout, is
// ErrNoSession; a store that cannot be read is another error (not
// ErrNoSession: the login may well be live), so no request is served on a
// session that was not checked.
func (s *Sessions) Load(r *http.Request) (*Session, error) {
	c, err := s.store.Get(r, s.name)
	if err != nil || c.IsNew {
		return nil, ErrNoSession
	}
	sid, _ := c.Values["sid"].(string)
	user, _ := c.Values["user"].(string)
	actAs, _ := c.Values["act_as"].(string)
	now := s.cfg.Now()
	ctx := r.Context()
	sess, err := s.live.GetSession(ctx, sid)
	if err != nil {
		return nil, err
	}
	if sess.User != user {
		return nil, ErrNoSession
	}
	if !s.fresh(sess, now) {
		_ = s.live.DeleteSession(ctx, sid)
		return nil, ErrNoSession
	}
	if err := s.renew(ctx, &sess, now); err != nil {
		return nil, err
	}
	if now.Sub(sess.Seen) >= touchEvery {
		// The session was read and checked; a write that fails (a busy
		// database) only leaves the idle timer where it was, and the next
		// request tries again. Refusing the request would log a user out
		// over a moment's contention.
		_ = s.live.TouchSession(ctx, sid, now)
	}
	sess.Seen = now
	sess.ActAs = actAs
	return &sess, nil
}

func (s *Sessions) fresh(sess Session, now time.Time) bool {
	return now.Sub(sess.Seen) <= s.cfg.IdleTimeout && now.Sub(sess.Created) <= s.cfg.AbsoluteTimeout
}

// Alive reports whether the session is still live, without counting as
// activity (a long-lived event stream must not keep a session from idling
// out).
func (s *Sessions) Alive(sess *Session) bool {
	live, err := s.live.GetSession(context.Background(), sess.ID)
	return err == nil && s.fresh(live, s.cfg.Now())
}

// End revokes the session server-side and clears the cookie. It returns
// the ended session's ID token (for the provider's logout), or "".
func (s *Sessions) End(w http.ResponseWriter, r *http.Request, sess *Session) string {
	idToken := ""
	if sess != nil {
		if live, err := s.live.GetSession(r.Context(), sess.ID); err == nil {
			idToken = live.IDToken
		}
		_ = s.live.DeleteSession(r.Context(), sess.ID)
	}
	http.SetCookie(w, &http.Cookie{Name: s.name, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: s.cfg.Secure, SameSite: http.SameSiteLaxMode})
	return idToken
}

// CheckCSRF reports whether the request carries the session's CSRF token,
// in the form field csrf_token or the X-CSRF-Token header (htmx).
func (sess *Session) CheckCSRF(r *http.Request) bool {
	got := r.Header.Get("X-CSRF-Token")
	if got == "" {
		got = r.PostFormValue("csrf_token")
	}
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(sess.CSRF)) == 1
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}
