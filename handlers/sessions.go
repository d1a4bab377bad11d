package handlers

import (
	"context"
	"errors"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/web"
)

// SessionStore keeps the web wallet's live sessions in the database, so
// every replica honours a login and a logout. It adapts the ledger's
// session rows to web.SessionStore (web imports nothing of ours).
func SessionStore(l *ledger.Ledger) web.SessionStore { return sessionStore{l} }

type sessionStore struct{ l *ledger.Ledger }

func (s sessionStore) PutSession(ctx context.Context, w web.Session) error {
	return s.l.PutWebSession(ctx, ledger.WebSession{ID: w.ID, User: w.User, CSRF: w.CSRF, IDToken: w.IDToken, Created: w.Created, Seen: w.Seen})
}

func (s sessionStore) GetSession(ctx context.Context, id string) (web.Session, error) {
	w, err := s.l.WebSession(ctx, id)
	if errors.Is(err, ledger.ErrNotFound) {
		return web.Session{}, web.ErrNoSession
	}
	if err != nil {
		return web.Session{}, err
	}
	return web.Session{ID: w.ID, User: w.User, CSRF: w.CSRF, IDToken: w.IDToken, Created: w.Created, Seen: w.Seen}, nil
}

func (s sessionStore) TouchSession(ctx context.Context, id string, seen time.Time) error {
	return s.l.TouchWebSession(ctx, id, seen)
}

func (s sessionStore) DeleteSession(ctx context.Context, id string) error {
	return s.l.DeleteWebSession(ctx, id)
}

func (s sessionStore) PruneSessions(ctx context.Context, idleBefore, createdBefore time.Time) error {
	return s.l.PruneWebSessions(ctx, idleBefore, createdBefore)
}
