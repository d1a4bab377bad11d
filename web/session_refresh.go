package web

import (
	"context"
	"crypto/sha256"
	"errors"
	"hash/fnv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/securecookie"
)

// Tokens are what the provider gave at login or at the last refresh.
type Tokens struct {
	IDToken      string
	RefreshToken string
	// Expiry is the access token's (zero: the provider did not say).
	Expiry time.Time
}

// Refresher renews a login's tokens at the provider (OIDCLogin). Refresh
// returns ErrLoginEnded when the provider refuses (the login is over), any
// other error when it could not be asked.
type Refresher interface {
	Refresh(ctx context.Context, refreshToken, user string) (Tokens, error)
}

// refreshMargin is how long before the access token expires a session's
// tokens are renewed, at the session's next request.
const refreshMargin = time.Minute

// refreshPause is how long renewals wait after the provider could not be
// asked: the sessions keep serving meanwhile, without every request
// waiting for a provider that is down.
const refreshPause = 30 * time.Second

// RenewalClaimer is a SessionStore that replicas share (the database):
// before a replica asks the provider, it claims the session's renewal, so
// that two replicas never use one refresh token twice (a provider that
// rotates refresh tokens treats that as theft and ends the login).
// ClaimSessionRenewal takes the renewal until until when the stored
// refresh token is still refreshToken and no other claim runs past now,
// and reports whether it took it; UpdateSessionTokens ends the claim.
// A store only this process uses needs none: renewal's locks serialise.
type RenewalClaimer interface {
	ClaimSessionRenewal(ctx context.Context, id, refreshToken string, now, until time.Time) (bool, error)
}

// renewalClaim is how long a replica's claim on a renewal holds: longer
// than the renewal's own timeout, so a claim lapses only when its holder
// died.
const renewalClaim = 30 * time.Second

// renewal is the refresh state of Sessions.
type renewal struct {
	// sealer keeps refresh tokens encrypted and authenticated at rest.
	sealer *securecookie.SecureCookie
	// locks serialise the renewals of one session (by a stripe of its
	// ID): a provider that rotates refresh tokens may treat a token used
	// twice as stolen and end the login.
	locks [64]sync.Mutex
	// unreachable is when the provider last could not be asked (unix
	// nanoseconds, 0: it answered).
	unreachable atomic.Int64
}

func newRenewal(secret string) *renewal {
	hashKey := sha256.Sum256([]byte("ccwallet refresh token mac\x00" + secret))
	blockKey := sha256.Sum256([]byte("ccwallet refresh token enc\x00" + secret))
	return &renewal{sealer: securecookie.New(hashKey[:], blockKey[:]).MaxAge(0)}
}

const sealName = "refresh_token"

// seal encrypts a refresh token for the store ("" stays "").
func (r *renewal) seal(token string) string {
	if token == "" {
		return ""
	}
	v, err := r.sealer.Encode(sealName, token)
	if err != nil {
		return "" // cannot happen for a string; the session then just is not renewed
	}
	return v
}

// renew renews sess's tokens when they expire within refreshMargin. When
// the provider refuses, the session is deleted and the error is
// ErrLoginEnded; when it cannot be asked, the session serves on.
func (s *Sessions) renew(ctx context.Context, sess *Session, now time.Time) error {
	if s.cfg.Refresher == nil || sess.RefreshToken == "" || sess.TokenExpiry.IsZero() || now.Before(sess.TokenExpiry.Add(-refreshMargin)) {
		return nil
	}
	if u := s.unreachable.Load(); u != 0 && now.Sub(time.Unix(0, u)) < refreshPause {
		return nil
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(sess.ID))
	mu := &s.locks[h.Sum32()%uint32(len(s.locks))]
	mu.Lock()
	defer mu.Unlock()
	if renewed, err := s.renewedMeanwhile(ctx, sess); renewed || err != nil {
		return err
	}
	var token string
	if err := s.sealer.Decode(sealName, sess.RefreshToken, &token); err != nil {
		return nil // sealed under another session secret: the session lives by its timeouts
	}
	if c, ok := s.live.(RenewalClaimer); ok {
		claimed, err := c.ClaimSessionRenewal(ctx, sess.ID, sess.RefreshToken, now, now.Add(renewalClaim))
		if err != nil {
			return err
		}
		if !claimed {
			// Another replica renews it, or just did: take its tokens
			// if they are there, else serve on with these (still valid
			// for up to refreshMargin) until a later request sees them.
			_, err := s.renewedMeanwhile(ctx, sess)
			return err
		}
	}
	// The renewal outlives a browser that leaves: a provider that rotates
	// refresh tokens may have used this one up, and the new one must be
	// stored, or the next renewal's reuse ends the login.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	tok, err := s.cfg.Refresher.Refresh(ctx, token, sess.User)
	if errors.Is(err, ErrLoginEnded) {
		_ = s.live.DeleteSession(ctx, sess.ID)
		return err
	}
	if err != nil {
		s.unreachable.Store(now.UnixNano())
		return nil
	}
	s.unreachable.Store(0)
	if tok.IDToken == "" {
		tok.IDToken = sess.IDToken
	}
	tok.RefreshToken = s.seal(tok.RefreshToken)
	if err := s.live.UpdateSessionTokens(ctx, sess.ID, tok); err != nil {
		return err
	}
	sess.IDToken, sess.RefreshToken, sess.TokenExpiry = tok.IDToken, tok.RefreshToken, tok.Expiry
	return nil
}

// renewedMeanwhile reports whether the stored session's refresh token is
// no longer sess's (another request or replica renewed it), and if so
// gives sess the stored tokens.
func (s *Sessions) renewedMeanwhile(ctx context.Context, sess *Session) (bool, error) {
	live, err := s.live.GetSession(ctx, sess.ID)
	if err != nil {
		return false, err
	}
	if live.RefreshToken == sess.RefreshToken {
		return false, nil
	}
	sess.IDToken, sess.RefreshToken, sess.TokenExpiry = live.IDToken, live.RefreshToken, live.TokenExpiry
	return true, nil
}
