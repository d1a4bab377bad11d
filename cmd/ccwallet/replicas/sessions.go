package replicas

import (
	"context"
	"errors"
	"time"

	"github.com/ccwallet/ccwallet/store"
	"github.com/ccwallet/ccwallet/web"
)

// Sessions is web.SessionStore on db's web_sessions table.
func Sessions(db *store.DB) web.SessionStore { return sessions{db} }

type sessions struct{ db *store.DB }

func (s sessions) PutSession(ctx context.Context, w web.Session) error {
	return store.InsertWebSession(ctx, s.db, &store.WebSession{
		ID: w.ID, UserName: w.User, CSRF: w.CSRF, IDToken: w.IDToken, CreatedAt: w.Created.UTC(), SeenAt: w.Seen.UTC(),
		RefreshToken: w.RefreshToken, TokenExpiry: utc(w.TokenExpiry),
	})
}

func (s sessions) GetSession(ctx context.Context, id string) (web.Session, error) {
	w, err := store.WebSessionByID(ctx, s.db, id)
	if errors.Is(err, store.ErrNotFound) {
		return web.Session{}, web.ErrNoSession
	}
	if err != nil {
		return web.Session{}, err
	}
	return web.Session{ID: w.ID, User: w.UserName, CSRF: w.CSRF, IDToken: w.IDToken, Created: w.CreatedAt, Seen: w.SeenAt,
		RefreshToken: w.RefreshToken, TokenExpiry: w.TokenExpiry}, nil
}

func (s sessions) UpdateSessionTokens(ctx context.Context, id string, t web.Tokens) error {
	return store.UpdateWebSessionTokens(ctx, s.db, id, t.IDToken, t.RefreshToken, utc(t.Expiry))
}

// ClaimSessionRenewal is web.RenewalClaimer: the replicas on one
// database renew a session's tokens one at a time.
func (s sessions) ClaimSessionRenewal(ctx context.Context, id, refreshToken string, now, until time.Time) (bool, error) {
	return store.ClaimWebSessionRenewal(ctx, s.db, id, refreshToken, now, until)
}

// utc is t in UTC, the zero time staying zero (NULL).
func utc(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC()
}

func (s sessions) TouchSession(ctx context.Context, id string, seen time.Time) error {
	return store.TouchWebSession(ctx, s.db, id, seen.UTC())
}

func (s sessions) DeleteSession(ctx context.Context, id string) error {
	return store.DeleteWebSession(ctx, s.db, id)
}

func (s sessions) PruneSessions(ctx context.Context, idleBefore, createdBefore time.Time) error {
	return store.PruneWebSessions(ctx, s.db, idleBefore.UTC(), createdBefore.UTC())
}
