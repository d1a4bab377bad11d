package store

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// ClaimWebSessionRenewal takes the renewal of session id's tokens until
// until, if its refresh token is still refreshToken and no other claim
// runs past now; it reports whether it took it. One UPDATE, so of the
// replicas that try at once exactly one wins. UpdateWebSessionTokens
// ends the claim; a claim whose holder died lapses at until.
func ClaimWebSessionRenewal(ctx context.Context, db bun.IDB, id, refreshToken string, now, until time.Time) (bool, error) {
	res, err := db.NewUpdate().Table("web_sessions").Set("renewal_claimed_until = ?", until.UTC()).
		Where("id = ?", id).Where("refresh_token = ?", refreshToken).
		Where("(renewal_claimed_until IS NULL OR renewal_claimed_until < ?)", now.UTC()).Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("claim session renewal: %w", Normalize(err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("claim session renewal: %w", Normalize(err))
	}
	return n == 1, nil
}
