package store

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// InsertCompletion stores a Ledger API completion.
func InsertCompletion(ctx context.Context, db bun.IDB, c *Completion) error {
	if _, err := db.NewInsert().Model(c).Exec(ctx); err != nil {
		return fmt.Errorf("insert completion at %d: %w", c.OffsetID, Normalize(err))
	}
	return nil
}

// PageCompletion is a completion as a page lists it: without its
// exercise, which a page does not show.
type PageCompletion struct {
	Completion `bun:",extend"`
	// Pruned is the pruning offset, read with the rows.
	Pruned int64 `bun:"pruned"`
}

// CompletionsAfter lists user's completions after offset after up to
// upto, oldest first, at most limit, and the pruning offset as of the
// same read. On Postgres that is one statement, an empty page's too,
// prepared once per connection (queryPrepared): a client waiting for its
// command's completion reads it once or twice per command, and its
// parsing and planning cost more than its run.
func CompletionsAfter(ctx context.Context, db *DB, user string, after, upto int64, limit int) (cs []PageCompletion, pruned int64, err error) {
	ok, err := queryPrepared(ctx, db, &cs, completionsAfterSQL, user, after, upto, limit)
	if ok && err == nil && len(cs) > 0 {
		// The pruning offset's row, with a completion or without one
		// (the join's NULLs, scanned as zeros; no offset is 0).
		pruned = cs[0].Pruned
		if cs[0].OffsetID == 0 {
			cs = cs[:0]
		}
		return cs, pruned, nil
	}
	if !ok {
		err = db.NewSelect().Model(&cs).
			Column("offset_id", "user_id", "command_id", "act_as", "submission_id", "update_id", "status_code", "message", "record_time").
			ColumnExpr("(SELECT last_offset FROM pruned_totals WHERE id = 1) AS pruned").
			Where("user_id = ?", user).Where("offset_id > ?", after).Where("offset_id <= ?", upto).
			Order("offset_id").Limit(int64(limit)).Scan(ctx)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("completions of %s: %w", user, Normalize(err))
	}
	if len(cs) > 0 {
		return cs, cs[0].Pruned, nil
	}
	t, err := LoadPrunedTotals(ctx, db)
	if err != nil {
		return nil, 0, err
	}
	return cs, t.LastOffset, nil
}

// completionsAfterSQL is CompletionsAfter's statement on Postgres: the
// page bun builds for SQLite, joined to the pruning offset's row so that
// an empty page still brings it.
const completionsAfterSQL = `SELECT c.offset_id, c.user_id, c.command_id, c.act_as, c.submission_id, c.update_id, c.status_code, c.message, c.record_time,
	p.last_offset AS pruned
FROM pruned_totals AS p LEFT JOIN LATERAL (
	SELECT offset_id, user_id, command_id, act_as, submission_id, update_id, status_code, message, record_time
	FROM completions WHERE user_id = $1 AND offset_id > $2 AND offset_id <= $3 ORDER BY offset_id LIMIT $4) AS c ON true
WHERE p.id = 1 ORDER BY c.offset_id`

// DeleteCompletionsUpTo removes the completions at or before offset (the
// update log pruned up to it).
func DeleteCompletionsUpTo(ctx context.Context, db bun.IDB, offset int64) error {
	if _, err := db.NewDelete().Table("completions").Where("offset_id <= ?", offset).Exec(ctx); err != nil {
		return fmt.Errorf("delete completions: %w", Normalize(err))
	}
	return nil
}

// CapCompletions keeps at most keep completions per user, the newest,
// and reports how many it removed.
func CapCompletions(ctx context.Context, db bun.IDB, keep int) (int64, error) {
	var users []string
	err := db.NewSelect().Table("completions").Column("user_id").Group("user_id").
		Having("COUNT(*) > ?", keep).Scan(ctx, &users)
	if err != nil {
		return 0, fmt.Errorf("completions over the cap: %w", Normalize(err))
	}
	var removed int64
	for _, u := range users {
		var oldestKept int64
		err := db.NewSelect().Table("completions").Column("offset_id").Where("user_id = ?", u).
			Order("offset_id DESC").Offset(int64(keep-1)).Limit(1).Scan(ctx, &oldestKept)
		if err != nil {
			return removed, fmt.Errorf("completions of %s: %w", u, Normalize(err))
		}
		res, err := db.NewDelete().Table("completions").Where("user_id = ?", u).Where("offset_id < ?", oldestKept).Exec(ctx)
		if err != nil {
			return removed, fmt.Errorf("cap completions of %s: %w", u, Normalize(err))
		}
		n, _ := res.RowsAffected()
		removed += n
	}
	return removed, nil
}

// CompletionExists reports whether a completion of user's command
// commandID with submission id submissionID is stored.
func CompletionExists(ctx context.Context, db bun.IDB, user, commandID, submissionID string) (bool, error) {
	ok, err := db.NewSelect().Table("completions").Where("user_id = ?", user).Where("command_id = ?", commandID).
		Where("submission_id = ?", submissionID).Exists(ctx)
	if err != nil {
		return false, fmt.Errorf("completion of %s: %w", commandID, Normalize(err))
	}
	return ok, nil
}

// CompletionExercises maps each of offsets whose completion stored an
// exercise to that exercise (JSON).
func CompletionExercises(ctx context.Context, db bun.IDB, offsets []int64) (map[int64]string, error) {
	out := map[int64]string{}
	if len(offsets) == 0 {
		return out, nil
	}
	var cs []Completion
	err := db.NewSelect().Model(&cs).Column("offset_id", "exercise").Where("offset_id IN (?)", bun.List(offsets)).Where("exercise <> ''").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("exercises: %w", Normalize(err))
	}
	for _, c := range cs {
		out[c.OffsetID] = c.Exercise
	}
	return out, nil
}
