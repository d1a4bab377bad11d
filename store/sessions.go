package store

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// WebSession is a live web-wallet login session.
type WebSession struct {
	bun.BaseModel `bun:"table:web_sessions"`

	ID        string    `bun:"id,pk"`
	UserName  string    `bun:"user_name"`
	CSRF      string    `bun:"csrf"`
	IDToken   string    `bun:"id_token"`
	CreatedAt time.Time `bun:"created_at"`
	SeenAt    time.Time `bun:"seen_at"`
	// RefreshToken is sealed by the web package (never stored in clear).
	RefreshToken string    `bun:"refresh_token"`
	TokenExpiry  time.Time `bun:"token_expiry,nullzero"`
}

// InsertWebSession stores a session.
func InsertWebSession(ctx context.Context, db bun.IDB, s *WebSession) error {
	if _, err := db.NewInsert().Model(s).Exec(ctx); err != nil {
		return fmt.Errorf("insert session: %w", Normalize(err))
	}
	return nil
}

// WebSessionByID loads a session.
func WebSessionByID(ctx context.Context, db bun.IDB, id string) (*WebSession, error) {
	s := new(WebSession)
	if err := db.NewSelect().Model(s).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("session: %w", Normalize(err))
	}
	return s, nil
}

// TouchWebSession records activity.
func TouchWebSession(ctx context.Context, db bun.IDB, id string, seen time.Time) error {
	if _, err := db.NewUpdate().Table("web_sessions").Set("seen_at = ?", seen).Where("id = ?", id).Exec(ctx); err != nil {
		return fmt.Errorf("touch session: %w", Normalize(err))
	}
	return nil
}

// UpdateWebSessionTokens records the tokens of a refresh and ends its
// renewal's claim (ClaimWebSessionRenewal).
func UpdateWebSessionTokens(ctx context.Context, db bun.IDB, id, idToken, refreshToken string, expiry time.Time) error {
	q := db.NewUpdate().Table("web_sessions").Set("id_token = ?", idToken).Set("refresh_token = ?", refreshToken).
		Set("renewal_claimed_until = NULL")
	if expiry.IsZero() {
		q = q.Set("token_expiry = NULL")
	} else {
		q = q.Set("token_expiry = ?", expiry)
	}
	if _, err := q.Where("id = ?", id).Exec(ctx); err != nil {
		return fmt.Errorf("update session tokens: %w", Normalize(err))
	}
	return nil
}

// DeleteWebSession ends a session.
func DeleteWebSession(ctx context.Context, db bun.IDB, id string) error {
	if _, err := db.NewDelete().Table("web_sessions").Where("id = ?", id).Exec(ctx); err != nil {
		return fmt.Errorf("delete session: %w", Normalize(err))
	}
	return nil
}

// PruneWebSessions drops sessions idle or created before the limits.
func PruneWebSessions(ctx context.Context, db bun.IDB, idleBefore, createdBefore time.Time) error {
	_, err := db.NewDelete().Table("web_sessions").Where("seen_at < ? OR created_at < ?", idleBefore, createdBefore).Exec(ctx)
	if err != nil {
		return fmt.Errorf("prune sessions: %w", Normalize(err))
	}
	return nil
}
