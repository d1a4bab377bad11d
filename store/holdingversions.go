package store

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Holding versions (migration 0438): a party's version, the sum of its
// counters in holding_versions, rises with every commit that creates or
// archives one of the party's holdings, in that commit's transaction, so
// a reader that finds a party's version unchanged knows its holdings are
// unchanged, on any replica. The commit's write raises them (Writes: the
// owners of the holdings it inserts and spends, and Touched, the owners
// whose holdings the transaction spent or deleted before it), all in one
// statement, in the parties' order, each party's counter of one slot: on
// Postgres the connection's (VersionSlotSQL), so two batches of sends
// paying one receiver at once seldom queue on one row, and two commits
// that do take the same rows take them in the same order (they queue,
// never deadlock), each holding them from its write to its COMMIT.
// Restores and resets raise every row (raiseAllHoldingVersions).

// VersionSlotSQL is the slot of the counters a connection's commits
// raise on Postgres, one of 8 (SQLite's write transactions are
// exclusive: slot 0).
const VersionSlotSQL = "pg_backend_pid() % 8"

// raiseVersionsQuery is the statement that raises parties' versions in
// their order (Plain's write runs it last in its batch), nil when there
// are none.
func raiseVersionsQuery(db bun.IDB, parties []coin.PartyID) *bun.RawQuery {
	ps := SortedParties(parties)
	if len(ps) == 0 {
		return nil
	}
	slot := "0"
	if db.Dialect().Name() == dialect.PG {
		slot = VersionSlotSQL
	}
	values := make([]string, len(ps))
	args := make([]any, len(ps))
	for i, p := range ps {
		values[i], args[i] = "(?, "+slot+", 1)", p
	}
	return db.NewRaw(`INSERT INTO holding_versions AS v (party, slot, version) VALUES `+strings.Join(values, ", ")+
		` ON CONFLICT (party, slot) DO UPDATE SET version = v.version + 1`, args...)
}

// SortedParties is parties sorted, without duplicates or empty ones, as
// text.
func SortedParties(parties []coin.PartyID) []string {
	out := make([]string, 0, len(parties))
	for _, p := range parties {
		if p != "" {
			out = append(out, string(p))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// raiseAllHoldingVersions raises every party's version and gives every
// owner of a holding without one a row, inside a restore's or reset's
// transaction, which replaced the holdings wholesale: no version read
// before it is current after it.
func raiseAllHoldingVersions(ctx context.Context, tx bun.Tx) error {
	if _, err := tx.ExecContext(ctx, "UPDATE holding_versions SET version = version + 1"); err != nil {
		return fmt.Errorf("raise holding versions: %w", Normalize(err))
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO holding_versions (party, slot, version)
		SELECT DISTINCT owner, 0, 1 FROM holdings WHERE owner NOT IN (SELECT party FROM holding_versions)`); err != nil {
		return fmt.Errorf("raise holding versions: %w", Normalize(err))
	}
	return nil
}

// holdingVersionSQL is a party's version: the sum of its counters, 0 when
// it has none.
const holdingVersionSQL = "COALESCE((SELECT CAST(SUM(version) AS BIGINT) FROM holding_versions WHERE party = ?), 0)"

// RoundAndHoldingVersion is LatestRound and party's holding version (0
// when it has no row) in one statement: the version as of the same
// snapshot, read before the holdings it keys.
func RoundAndHoldingVersion(ctx context.Context, db bun.IDB, party coin.PartyID) (*Round, int64, error) {
	var row struct {
		Round
		Version int64 `bun:"holding_version"`
	}
	err := db.NewSelect().Model(&row.Round).ColumnExpr("round.*").
		ColumnExpr(holdingVersionSQL+" AS holding_version", party).
		Where("closed_at IS NULL").Order("number DESC").Limit(1).Scan(ctx, &row)
	if err != nil {
		return nil, 0, fmt.Errorf("latest round: %w", Normalize(err))
	}
	return &row.Round, row.Version, nil
}

// HoldingVersion is party's holding version, 0 when it has none.
func HoldingVersion(ctx context.Context, db bun.IDB, party coin.PartyID) (int64, error) {
	var v int64
	err := db.NewRaw("SELECT "+holdingVersionSQL, party).Scan(ctx, &v)
	if err != nil {
		return 0, fmt.Errorf("holding version of %s: %w", party, Normalize(err))
	}
	return v, nil
}
