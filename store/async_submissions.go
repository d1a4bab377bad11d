package store

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// AsyncSubmission is an accepted asynchronous Ledger API submission not
// yet known to have run (migration 0360).
type AsyncSubmission struct {
	bun.BaseModel `bun:"table:async_submissions"`

	ID          int64     `bun:"id,pk,autoincrement"`
	Owner       string    `bun:"owner"`
	UserID      string    `bun:"user_id"`
	ActAsClaim  string    `bun:"act_as_claim"`
	RequestID   string    `bun:"request_id"`
	CommandID   string    `bun:"command_id"`
	Body        string    `bun:"body"`
	AfterOffset int64     `bun:"after_offset"`
	CreatedAt   time.Time `bun:"created_at"`
}

// InsertAsyncSubmissions stores ss in one statement and sets their ids.
func InsertAsyncSubmissions(ctx context.Context, db bun.IDB, ss []AsyncSubmission) error {
	if _, err := db.NewInsert().Model(&ss).Returning("id").Exec(ctx); err != nil {
		return fmt.Errorf("keep %d async submissions: %w", len(ss), Normalize(err))
	}
	return nil
}

// DeleteAsyncSubmissions removes the submissions ids.
func DeleteAsyncSubmissions(ctx context.Context, db bun.IDB, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	if _, err := db.NewDelete().Table("async_submissions").Where("id IN (?)", bun.List(ids)).Exec(ctx); err != nil {
		return fmt.Errorf("forget async submissions: %w", Normalize(err))
	}
	return nil
}

// AsyncSubmissionsOf lists owner's submissions, oldest first, at most
// limit.
func AsyncSubmissionsOf(ctx context.Context, db bun.IDB, owner string, limit int) ([]AsyncSubmission, error) {
	var ss []AsyncSubmission
	err := db.NewSelect().Model(&ss).Where("owner = ?", owner).Order("id").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("async submissions of %s: %w", owner, Normalize(err))
	}
	return ss, nil
}

// SeeAsyncOwner records that owner is alive at now.
func SeeAsyncOwner(ctx context.Context, db bun.IDB, owner string, now time.Time) error {
	_, err := db.NewRaw("INSERT INTO async_owners (owner, seen_at) VALUES (?, ?) ON CONFLICT (owner) DO UPDATE SET seen_at = EXCLUDED.seen_at", owner, now).Exec(ctx)
	if err != nil {
		return fmt.Errorf("async owner %s: %w", owner, Normalize(err))
	}
	return nil
}

// TakeOverAsyncSubmissions gives to owner the submissions of every owner
// other than it not seen since before (or never seen), forgets those
// owners, and reports how many submissions it took.
func TakeOverAsyncSubmissions(ctx context.Context, db bun.IDB, owner string, before time.Time) (int64, error) {
	var n int64
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		alive := tx.NewSelect().Table("async_owners").Column("owner").Where("seen_at >= ?", before)
		res, err := tx.NewUpdate().Table("async_submissions").Set("owner = ?", owner).
			Where("owner <> ?", owner).Where("owner NOT IN (?)", alive).Exec(ctx)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		_, err = tx.NewDelete().Table("async_owners").Where("owner <> ?", owner).Where("seen_at < ?", before).Exec(ctx)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("take over async submissions: %w", Normalize(err))
	}
	return n, nil
}

// CompletionOf reports whether user's command commandID has a completion
// after offset after, whose act_as is actAs (comma-separated, as stored).
func CompletionOf(ctx context.Context, db bun.IDB, user, commandID, actAs string, after int64) (bool, error) {
	n, err := db.NewSelect().Table("completions").Where("user_id = ?", user).Where("offset_id > ?", after).
		Where("command_id = ?", commandID).Where("act_as = ?", actAs).Count(ctx)
	if err != nil {
		return false, fmt.Errorf("completion of %s: %w", commandID, Normalize(err))
	}
	return n > 0, nil
}
