package ledger

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/store"
)

// WebSession is a web-wallet login session as stored for all replicas.
type WebSession struct {
	ID, User, CSRF, IDToken string
	Created, Seen           time.Time
}

// PutWebSession stores a new login session.
func (l *Ledger) PutWebSession(ctx context.Context, s WebSession) error {
	return store.InsertWebSession(ctx, l.db, &store.WebSession{
		ID: s.ID, UserName: s.User, CSRF: s.CSRF, IDToken: s.IDToken, CreatedAt: s.Created.UTC(), SeenAt: s.Seen.UTC(),
	})
}

// WebSession loads a login session; ErrNotFound when it is not live.
func (l *Ledger) WebSession(ctx context.Context, id string) (WebSession, error) {
	s, err := store.WebSessionByID(ctx, l.db, id)
	if err != nil {
		return WebSession{}, err
	}
	return WebSession{ID: s.ID, User: s.UserName, CSRF: s.CSRF, IDToken: s.IDToken, Created: s.CreatedAt, Seen: s.SeenAt}, nil
}

// TouchWebSession records a session's activity.
func (l *Ledger) TouchWebSession(ctx context.Context, id string, seen time.Time) error {
	return store.TouchWebSession(ctx, l.db, id, seen.UTC())
}

// DeleteWebSession ends a session (logout).
func (l *Ledger) DeleteWebSession(ctx context.Context, id string) error {
	return store.DeleteWebSession(ctx, l.db, id)
}

// PruneWebSessions drops timed-out sessions.
func (l *Ledger) PruneWebSessions(ctx context.Context, idleBefore, createdBefore time.Time) error {
	return store.PruneWebSessions(ctx, l.db, idleBefore.UTC(), createdBefore.UTC())
}
