package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// MetaValue reads one ledger_meta value.
func MetaValue(ctx context.Context, db bun.IDB, key string) (string, error) {
	var v string
	err := db.NewSelect().Table("ledger_meta").Column("value").Where("key = ?", key).Scan(ctx, &v)
	if err != nil {
		return "", fmt.Errorf("meta %s: %w", key, Normalize(err))
	}
	return v, nil
}

// InsertMeta stores a ledger_meta value; ErrAlreadyExists if it is set.
func InsertMeta(ctx context.Context, db bun.IDB, key, value string) error {
	_, err := db.ExecContext(ctx, "INSERT INTO ledger_meta (key, value) VALUES (?, ?)", key, value)
	if err != nil {
		return fmt.Errorf("insert meta %s: %w", key, Normalize(err))
	}
	return nil
}

// InsertParty stores a party.
func InsertParty(ctx context.Context, db bun.IDB, p *Party) error {
	if _, err := db.NewInsert().Model(p).Exec(ctx); err != nil {
		return fmt.Errorf("insert party %s: %w", p.PartyID, Normalize(err))
	}
	return nil
}

// PartyByID loads a party.
func PartyByID(ctx context.Context, db bun.IDB, id coin.PartyID) (*Party, error) {
	p := new(Party)
	if err := db.NewSelect().Model(p).Where("party_id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("party %s: %w", id, Normalize(err))
	}
	return p, nil
}

// PartyIDsOfKind lists the parties of one kind, by ID.
func PartyIDsOfKind(ctx context.Context, db bun.IDB, kind string) ([]coin.PartyID, error) {
	var ids []coin.PartyID
	if err := db.NewSelect().Model((*Party)(nil)).Column("party_id").Where("kind = ?", kind).Order("party_id").Scan(ctx, &ids); err != nil {
		return nil, fmt.Errorf("parties of kind %s: %w", kind, Normalize(err))
	}
	return ids, nil
}

// InsertUser stores a user.
func InsertUser(ctx context.Context, db bun.IDB, u *User) error {
	if _, err := db.NewInsert().Model(u).Exec(ctx); err != nil {
		return fmt.Errorf("insert user %s: %w", u.Name, Normalize(err))
	}
	return nil
}

// UpdateUser rewrites a user row.
func UpdateUser(ctx context.Context, db bun.IDB, u *User) error {
	if _, err := db.NewUpdate().Model(u).WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("update user %s: %w", u.Name, Normalize(err))
	}
	return nil
}

// UserByName loads a user. On Postgres its statement is prepared once
// per connection (queryPreparedRow): every API call whose user is not
// cached reads it.
func UserByName(ctx context.Context, db bun.IDB, name string) (*User, error) {
	u := new(User)
	ok, err := queryPreparedRow(ctx, db, u, userByNameSQL, name)
	if !ok {
		err = db.NewSelect().Model(u).Where("name = ?", name).Scan(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("user %s: %w", name, Normalize(err))
	}
	return u, nil
}

// userByNameSQL is UserByName's statement on Postgres, the one bun
// builds for SQLite.
const userByNameSQL = `SELECT name, party_id, is_admin, install_cid, created_at, offboarded_at FROM users WHERE name = $1`

// Users lists users, onboarded ones only unless all is set.
func Users(ctx context.Context, db bun.IDB, all bool) ([]User, error) {
	var us []User
	q := db.NewSelect().Model(&us).Order("name")
	if !all {
		q = q.Where("offboarded_at IS NULL")
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("list users: %w", Normalize(err))
	}
	return us, nil
}

// ArchiveContracts marks contracts archived at offset. It is guarded: if
// any of them is already archived (or missing) it returns ErrStale, and the
// caller's transaction rolls back, so no contract is ever consumed twice.
func ArchiveContracts(ctx context.Context, db bun.IDB, ids []coin.ContractID, offset int64) error {
	if len(ids) == 0 {
		return nil
	}
	res, err := db.NewUpdate().Table("contracts").Set("archived_offset = ?", offset).
		Where("contract_id IN (?)", bun.List(ids)).Where("archived_offset IS NULL").Exec(ctx)
	if err != nil {
		return fmt.Errorf("archive contracts: %w", Normalize(err))
	}
	if n, _ := res.RowsAffected(); n != int64(len(ids)) {
		return fmt.Errorf("archive %d contracts, %d were active: %w", len(ids), n, ErrStale)
	}
	return nil
}

// ContractByID loads a contract, active or archived.
func ContractByID(ctx context.Context, db bun.IDB, id coin.ContractID) (*Contract, error) {
	c := new(Contract)
	if err := db.NewSelect().Model(c).Where("contract_id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("contract %s: %w", id, Normalize(err))
	}
	return c, nil
}

// ContractsByIDs loads the contracts ids (archived ones too), by id, 500
// to a query.
func ContractsByIDs(ctx context.Context, db bun.IDB, ids []coin.ContractID) (map[coin.ContractID]*Contract, error) {
	out := make(map[coin.ContractID]*Contract, len(ids))
	for start := 0; start < len(ids); start += 500 {
		end := min(start+500, len(ids))
		var cs []Contract
		if err := db.NewSelect().Model(&cs).Where("contract_id IN (?)", bun.List(ids[start:end])).Scan(ctx); err != nil {
			return nil, fmt.Errorf("load contracts: %w", Normalize(err))
		}
		for i := range cs {
			out[cs[i].ContractID] = &cs[i]
		}
	}
	return out, nil
}

// ActiveSynchronizers is the synchronizer of each of ids that is active
// (archived and unknown ones are left out): whether contracts whose
// content a caller already has are still there, without reading it.
func ActiveSynchronizers(ctx context.Context, db bun.IDB, ids []coin.ContractID) (map[coin.ContractID]string, error) {
	out := make(map[coin.ContractID]string, len(ids))
	var rows []struct {
		ContractID     coin.ContractID `bun:"contract_id"`
		SynchronizerID string          `bun:"synchronizer_id"`
	}
	collect := func(err error) error {
		if err != nil {
			return fmt.Errorf("active contracts: %w", Normalize(err))
		}
		for _, r := range rows {
			out[r.ContractID] = r.SynchronizerID
		}
		return nil
	}
	// The registry's transfer factory asks this of the contracts it
	// discloses: on Postgres one prepared statement for any number of ids.
	strs := make([]string, len(ids))
	for i, id := range ids {
		strs[i] = string(id)
	}
	if ok, err := queryPrepared(ctx, db, &rows, activeSynchronizersSQL, strs); ok {
		return out, collect(err)
	}
	for start := 0; start < len(ids); start += 500 {
		end := min(start+500, len(ids))
		rows = rows[:0]
		err := db.NewSelect().Table("contracts").Column("contract_id", "synchronizer_id").
			Where("contract_id IN (?)", bun.List(ids[start:end])).Where("archived_offset IS NULL").Scan(ctx, &rows)
		if err := collect(err); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// activeSynchronizersSQL is ActiveSynchronizers' statement on Postgres:
// one array for any number of ids, so one prepared statement.
const activeSynchronizersSQL = `SELECT contract_id, synchronizer_id FROM contracts WHERE contract_id = ANY($1::text[]) AND archived_offset IS NULL`

// ActiveContractsByTemplate lists active contracts of a template whose
// stakeholders include party (any party when empty).
func ActiveContractsByTemplate(ctx context.Context, db bun.IDB, templateID string, party coin.PartyID) ([]Contract, error) {
	var cs []Contract
	q := db.NewSelect().Model(&cs).Where("template_id = ?", templateID).Where("archived_offset IS NULL").Order("created_offset")
	if party != "" {
		q = q.Where(stakeholderIs(db, "stakeholders", party))
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("contracts of %s: %w", templateID, Normalize(err))
	}
	return cs, nil
}

// ContractsByTemplateSince lists the contracts of a template, archived
// ones included, created at or after since whose stakeholders include
// party and whose payload contains the text payloadHas (a LIKE pattern,
// so a pre-filter: callers check the payload they decode), oldest first.
func ContractsByTemplateSince(ctx context.Context, db bun.IDB, templateID string, party coin.PartyID, since time.Time, payloadHas string) ([]Contract, error) {
	var cs []Contract
	err := db.NewSelect().Model(&cs).Where("template_id = ?", templateID).Where("created_at >= ?", since).
		Where(stakeholderIs(db, "stakeholders", party)).Where("payload LIKE ?", "%"+payloadHas+"%").
		Order("created_offset").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("contracts of %s: %w", templateID, Normalize(err))
	}
	return cs, nil
}

// SpendHoldings archives unlocked holdings at offset: each row moves to
// spent_holdings. Guarded like ArchiveContracts: a locked, missing or
// already spent holding fails it with ErrStale. Run it inside a
// transaction: the error is what makes the caller roll back the rows the
// statements did move. It returns the holdings' owners, one per holding,
// whose versions the transaction's write raises (Writes.Touched).
func SpendHoldings(ctx context.Context, db bun.IDB, ids []coin.ContractID, offset int64) ([]coin.PartyID, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	res, err := db.ExecContext(ctx, `INSERT INTO spent_holdings (contract_id, owner, amount, created_round, rate, created_offset, spent_offset)
		SELECT contract_id, owner, amount, created_round, rate, created_offset, ? FROM holdings WHERE contract_id IN (?) AND lock_holder IS NULL`,
		offset, bun.List(ids))
	var owners []coin.PartyID
	if err == nil {
		if n, _ := res.RowsAffected(); n != int64(len(ids)) {
			return nil, fmt.Errorf("spend %d holdings, %d were available: %w", len(ids), n, ErrStale)
		}
		err = db.NewRaw("DELETE FROM holdings WHERE contract_id IN (?) RETURNING owner", bun.List(ids)).Scan(ctx, &owners)
	}
	if err != nil {
		return nil, fmt.Errorf("spend holdings: %w", Normalize(err))
	}
	if len(owners) != len(ids) {
		return nil, fmt.Errorf("spend %d holdings, %d were available: %w", len(ids), len(owners), ErrStale)
	}
	return owners, nil
}

// DeleteHoldings removes holdings locked by lockedBy, whose archive is
// their LockedAmulet contract's. Guarded like ArchiveContracts: a holding
// not locked by lockedBy, missing or gone fails it with ErrStale. Run it
// inside a transaction: the error is what makes the caller roll back the
// rows the statement did delete.
func DeleteHoldings(ctx context.Context, db bun.IDB, ids []coin.ContractID, lockedBy string) error {
	if len(ids) == 0 {
		return nil
	}
	if lockedBy == "" {
		return errors.New("delete holdings: unlocked holdings are spent (SpendHoldings), not deleted")
	}
	res, err := db.NewDelete().Table("holdings").Where("contract_id IN (?)", bun.List(ids)).Where("lock_holder = ?", lockedBy).Exec(ctx)
	if err != nil {
		return fmt.Errorf("delete holdings: %w", Normalize(err))
	}
	if n, _ := res.RowsAffected(); n != int64(len(ids)) {
		return fmt.Errorf("delete %d holdings, %d were available: %w", len(ids), n, ErrStale)
	}
	return nil
}

// staleCode is the SQLSTATE the write statement's guard (store/pgbatch) raises when a holding
// was spent meanwhile; Normalize maps it to ErrStale.
const staleCode = "CWST1"

// CachedStatement is args for a query that database/sql runs on pgx as a
// statement prepared once per connection, rather than in the connections'
// simple protocol (withSessionDefaults): the store's array statements.
func CachedStatement(args ...any) []any {
	return append([]any{pgx.QueryExecModeCacheStatement}, args...)
}

// queryPrepared runs query, with Postgres's placeholders, as a
// CachedStatement on db's pool or transaction and scans its rows into the
// slice dest as bun scans a model; ok is false, and nothing runs, where db
// is not on Postgres, for the caller's bun query. bun writes a query's
// values into its text, so Postgres parses and plans each call; a read on
// a hot path (a transfer's, an API call's) goes this way instead.
func queryPrepared(ctx context.Context, db bun.IDB, dest any, query string, args ...any) (ok bool, err error) {
	rows, scanner, ok, err := prepared(ctx, db, query, args)
	if !ok || err != nil {
		return ok, err
	}
	return true, scanner.ScanRows(ctx, rows, dest)
}

// queryPreparedRow is queryPrepared of one row into the struct dest:
// sql.ErrNoRows when there is none, as bun's Scan answers.
func queryPreparedRow(ctx context.Context, db bun.IDB, dest any, query string, args ...any) (ok bool, err error) {
	rows, scanner, ok, err := prepared(ctx, db, query, args)
	if !ok || err != nil {
		return ok, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return true, err
		}
		return true, sql.ErrNoRows
	}
	return true, scanner.ScanRow(ctx, rows, dest)
}

// prepared runs query for queryPrepared and queryPreparedRow, with the
// bun.DB that scans its rows.
func prepared(ctx context.Context, db bun.IDB, query string, args []any) (*sql.Rows, *bun.DB, bool, error) {
	var q interface {
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	}
	var scanner *bun.DB
	switch d := db.(type) {
	case *DB:
		if d.Engine != Postgres {
			return nil, nil, false, nil
		}
		q, scanner = d.DB.DB, d.DB
	case bun.Tx:
		if d.Dialect().Name() != dialect.PG {
			return nil, nil, false, nil
		}
		q, scanner = d.Tx, d.NewSelect().DB()
	default:
		return nil, nil, false, nil
	}
	rows, err := q.QueryContext(ctx, query, CachedStatement(args...)...)
	return rows, scanner, true, err
}

// HoldingsByOwner lists an owner's live holdings, locked ones included.
func HoldingsByOwner(ctx context.Context, db bun.IDB, owner coin.PartyID) ([]Holding, error) {
	var hs []Holding
	if err := db.NewSelect().Model(&hs).Where("owner = ?", owner).Order("contract_id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("holdings of %s: %w", owner, Normalize(err))
	}
	return hs, nil
}

// HoldingValuesByOwner is HoldingsByOwner with only what valuing a
// holding needs (ID, amount, round, rate, lock holder; Owner is owner): a
// page that values a thousand holdings on each visit reads less.
func HoldingValuesByOwner(ctx context.Context, db bun.IDB, owner coin.PartyID) ([]Holding, error) {
	// Scanned by hand, not through bun's model: the home page reads every
	// holding of a party on each visit, and the model's reflection was a
	// tenth of that read's CPU (BenchmarkHomePage, bench/NOTES.md). On
	// Postgres outside a transaction, pgx's own rows: database/sql's
	// conversions of each value were half of what remained.
	var pool *bun.DB
	switch d := db.(type) {
	case *DB:
		pool = d.DB
	case *bun.DB:
		pool = d
	}
	if pool != nil && pool.Dialect().Name() == dialect.PG {
		return holdingValuesPgx(ctx, pool.DB, owner)
	}
	rows, err := db.QueryContext(ctx, holdingValuesQuery, owner)
	if err != nil {
		return nil, fmt.Errorf("holdings of %s: %w", owner, Normalize(err))
	}
	defer rows.Close()
	var hs []Holding
	var lock sql.NullString
	for rows.Next() {
		hs = append(hs, Holding{Owner: owner})
		h := &hs[len(hs)-1]
		if err := rows.Scan(&h.ContractID, &h.Amount, &h.CreatedRound, &h.Rate, &lock); err != nil {
			return nil, fmt.Errorf("holdings of %s: %w", owner, Normalize(err))
		}
		h.LockHolder = lock.String
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("holdings of %s: %w", owner, Normalize(err))
	}
	return hs, nil
}

const holdingValuesQuery = "SELECT contract_id, amount, created_round, rate, lock_holder FROM holdings WHERE owner = ? ORDER BY contract_id"

// holdingValuesPgxQuery is holdingValuesQuery with pgx's placeholder,
// made once rather than on every home page visit.
var holdingValuesPgxQuery = strings.Replace(holdingValuesQuery, "?", "$1", 1)

// holdingValuesPgx is HoldingValuesByOwner on a pgx connection of db,
// reading each row's text as it came (the connections use the simple
// protocol, so every column is text).
func holdingValuesPgx(ctx context.Context, db *sql.DB, owner coin.PartyID) ([]Holding, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("holdings of %s: %w", owner, Normalize(err))
	}
	defer conn.Close()
	var hs []Holding
	err = conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("the driver connection is %T, not pgx", dc)
		}
		rows, err := sc.Conn().Query(ctx, holdingValuesPgxQuery, string(owner))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			v := rows.RawValues()
			if len(v) != 5 || v[0] == nil || v[1] == nil || v[2] == nil || v[3] == nil {
				return fmt.Errorf("unexpected holding row %q", v)
			}
			hs = append(hs, Holding{ContractID: coin.ContractID(v[0]), Owner: owner, LockHolder: string(v[4])})
			h := &hs[len(hs)-1]
			if err := h.Amount.Scan(v[1]); err != nil {
				return err
			}
			if err := h.Rate.Scan(v[3]); err != nil {
				return err
			}
			n, err := strconv.ParseInt(string(v[2]), 10, 64)
			if err != nil {
				return fmt.Errorf("created round %q: %w", v[2], err)
			}
			h.CreatedRound = coin.Round(n)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("holdings of %s: %w", owner, Normalize(err))
	}
	return hs, nil
}

// HoldingsByIDs loads specific live holdings.
func HoldingsByIDs(ctx context.Context, db bun.IDB, ids []coin.ContractID) ([]Holding, error) {
	var hs []Holding
	if len(ids) == 0 {
		return nil, nil
	}
	if err := db.NewSelect().Model(&hs).Where("contract_id IN (?)", bun.List(ids)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("holdings: %w", Normalize(err))
	}
	return hs, nil
}

// ScanHoldings calls fn for every live holding, in batches, for checks that
// read the whole ledger.
func ScanHoldings(ctx context.Context, db bun.IDB, fn func(Holding) error) error {
	last := ""
	for {
		var hs []Holding
		err := db.NewSelect().Model(&hs).Where("contract_id > ?", last).Order("contract_id").Limit(5000).Scan(ctx)
		if err != nil {
			return fmt.Errorf("scan holdings: %w", Normalize(err))
		}
		for _, h := range hs {
			if err := fn(h); err != nil {
				return err
			}
		}
		if len(hs) < 5000 {
			return nil
		}
		last = string(hs[len(hs)-1].ContractID)
	}
}

// eventOffsets are the columns that record a contract event's offset, for
// EventsWithoutUpdate.
var eventOffsets = []struct{ what, table, column string }{
	{"contracts created", "contracts", "created_offset"},
	{"contracts archived", "contracts", "archived_offset"},
	{"holdings created", "holdings", "created_offset"},
	{"spent holdings created", "spent_holdings", "created_offset"},
	{"holdings spent", "spent_holdings", "spent_offset"},
	{"reward coupons created", "reward_coupons", "created_offset"},
	{"reward coupons collected", "reward_coupons", "collected_offset"},
}

// EventsWithoutUpdate lists, as "what: count", the events after offset
// after whose update is not in the log, and those at offset 0 or below,
// which no update has.
func EventsWithoutUpdate(ctx context.Context, db bun.IDB, after int64) ([]string, error) {
	var out []string
	for _, e := range eventOffsets {
		var n int
		err := db.NewRaw(`SELECT COUNT(*) FROM ? AS r WHERE r.? <= 0 OR (r.? > ? AND NOT EXISTS (SELECT 1 FROM updates AS u WHERE u.offset_id = r.?))`,
			bun.Ident(e.table), bun.Ident(e.column), bun.Ident(e.column), after, bun.Ident(e.column)).Scan(ctx, &n)
		if err != nil {
			return nil, fmt.Errorf("events without update: %w", Normalize(err))
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("%s: %d", e.what, n))
		}
	}
	return out, nil
}

// ScanUpdateTotals calls fn with minted and burned of every update.
func ScanUpdateTotals(ctx context.Context, db bun.IDB, fn func(minted, burned coin.Amount) error) error {
	var last int64
	for {
		var us []Update
		err := db.NewSelect().Model(&us).Column("offset_id", "minted", "burned").
			Where("offset_id > ?", last).Order("offset_id").Limit(5000).Scan(ctx)
		if err != nil {
			return fmt.Errorf("scan updates: %w", Normalize(err))
		}
		for _, u := range us {
			if err := fn(u.Minted, u.Burned); err != nil {
				return err
			}
		}
		if len(us) < 5000 {
			return nil
		}
		last = us[len(us)-1].OffsetID
	}
}

// InsertRound stores a round.
func InsertRound(ctx context.Context, db bun.IDB, r *Round) error {
	if _, err := db.NewInsert().Model(r).Exec(ctx); err != nil {
		return fmt.Errorf("insert round %d: %w", r.Number, Normalize(err))
	}
	return nil
}

// InsertRounds stores rounds in one statement (a development network's
// time jump opens hundreds at once).
func InsertRounds(ctx context.Context, db bun.IDB, rs []Round) error {
	if len(rs) == 0 {
		return nil
	}
	if _, err := db.NewInsert().Model(&rs).Exec(ctx); err != nil {
		return fmt.Errorf("insert rounds %d-%d: %w", rs[0].Number, rs[len(rs)-1].Number, Normalize(err))
	}
	return nil
}

// LatestRound loads the newest open round.
func LatestRound(ctx context.Context, db bun.IDB) (*Round, error) {
	r := new(Round)
	if err := db.NewSelect().Model(r).Where("closed_at IS NULL").Order("number DESC").Limit(1).Scan(ctx); err != nil {
		return nil, fmt.Errorf("latest round: %w", Normalize(err))
	}
	return r, nil
}

// CloseRoundsBefore closes every open round numbered below n.
func CloseRoundsBefore(ctx context.Context, db bun.IDB, n coin.Round, at time.Time) ([]Round, error) {
	var rs []Round
	err := db.NewSelect().Model(&rs).Where("closed_at IS NULL").Where("number < ?", n).Order("number").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("open rounds: %w", Normalize(err))
	}
	if len(rs) == 0 {
		return nil, nil
	}
	_, err = db.NewUpdate().Table("rounds").Set("closed_at = ?", at).Where("closed_at IS NULL").Where("number < ?", n).Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("close rounds: %w", Normalize(err))
	}
	return rs, nil
}

// HistoryFilter selects a page of a party's history, newest first.
type HistoryFilter struct {
	Party        coin.PartyID
	BeforeID     int64 // 0: from the newest
	Limit        int
	Kind         string
	Counterparty string
}

// History returns a page of history, newest first: the rows that are the
// party's own view and the rows that carry its view as their counterparty
// (HistoryEntry). Each side is read newest first through its own index and
// the two merged. Paging by id keeps pages stable while new entries
// arrive: new ones only ever sort before page 1.
func History(ctx context.Context, db bun.IDB, f HistoryFilter) ([]HistoryEntry, error) {
	side := func(self, other, extra string) (string, []any) {
		q, args := "SELECT * FROM history WHERE "+self+" = ?"+extra, []any{f.Party}
		if f.BeforeID > 0 {
			q, args = q+" AND id < ?", append(args, f.BeforeID)
		}
		if f.Kind != "" {
			q, args = q+" AND kind = ?", append(args, f.Kind)
		}
		if f.Counterparty != "" {
			q, args = q+" AND "+other+" = ?", append(args, f.Counterparty)
		}
		return q + " ORDER BY id DESC LIMIT ?", append(args, f.Limit)
	}
	own, ownArgs := side("party", "counterparty", "")
	theirs, theirArgs := side("counterparty", "party", " AND counter_amount IS NOT NULL")
	// Subqueries in FROM, not parenthesised members: SQLite allows no
	// ORDER BY or LIMIT on a member of a compound select otherwise.
	q := "SELECT * FROM (" + own + ") AS own UNION ALL SELECT * FROM (" + theirs + ") AS theirs ORDER BY id DESC LIMIT ?"
	var es []HistoryEntry
	if err := db.NewRaw(q, append(append(ownArgs, theirArgs...), f.Limit)...).Scan(ctx, &es); err != nil {
		return nil, fmt.Errorf("history of %s: %w", f.Party, Normalize(err))
	}
	return es, nil
}

// CommandByKey loads a deduplication record.
func CommandByKey(ctx context.Context, db bun.IDB, key string) (*Command, error) {
	c := new(Command)
	if err := db.NewSelect().Model(c).Where("dedup_key = ?", key).Scan(ctx); err != nil {
		return nil, fmt.Errorf("command %s: %w", key, Normalize(err))
	}
	return c, nil
}

// InsertCommand stores a deduplication record; ErrAlreadyExists when the
// key was used.
func InsertCommand(ctx context.Context, db bun.IDB, c *Command) error {
	if _, err := db.NewInsert().Model(c).Exec(ctx); err != nil {
		return fmt.Errorf("insert command %s: %w", c.DedupKey, Normalize(err))
	}
	return nil
}

// RewardCouponsOf lists a beneficiary's uncollected coupons of a kind (all
// kinds when empty), oldest round first.
func RewardCouponsOf(ctx context.Context, db bun.IDB, beneficiary coin.PartyID, kind string) ([]RewardCoupon, error) {
	var cs []RewardCoupon
	q := db.NewSelect().Model(&cs).Where("beneficiary = ?", beneficiary).Where("collected_at IS NULL").Order("round", "contract_id")
	if kind != "" {
		q = q.Where("kind = ?", kind)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("reward coupons of %s: %w", beneficiary, Normalize(err))
	}
	return cs, nil
}

// OffsetSequence is the sequence that offsets are drawn from on Postgres,
// BIGSERIAL's for updates.offset_id, named so that no draw looks it up in
// the catalog (pg_get_serial_sequence did, on every one).
const OffsetSequence = "updates_offset_id_seq"

// BeginUpdate reads the latest open round and reserves the offset of a new
// update-log row in one round trip. Postgres draws the offset from the
// sequence (a rolled-back transaction leaves a gap, which is harmless);
// SQLite, whose write transactions are exclusive, takes max + 1.
//
// lockKeys, when given, are taken as transaction-scoped advisory locks by
// the same statement (Postgres), in the order given, before its row is
// returned: one round trip instead of one per lock.
func (db *DB) BeginUpdate(ctx context.Context, tx bun.IDB, lockKeys ...string) (*Round, int64, error) {
	var row struct {
		Round
		Next int64 `bun:"next_offset"`
	}
	next := "(SELECT COALESCE(MAX(offset_id), 0) + 1 FROM updates)"
	if db.Engine == Postgres {
		// Plain nextval since migration 0437; the fast batch's claim
		// (ccwallet_claim_fast, 0442) calls nextval on the same sequence
		// itself, so a change to how offsets are drawn changes both.
		next = "ccwallet_draw_offset()"
	}
	var args []any
	if db.Engine == Postgres && len(lockKeys) > 0 {
		// The locks are taken by a subquery that the offset is drawn
		// from, so they are held before the row comes back.
		locks := make([]string, len(lockKeys))
		for i, k := range lockKeys {
			locks[i] = "pg_advisory_xact_lock(hashtextextended(?, 0))"
			args = append(args, k)
		}
		next = "(SELECT " + next + " FROM (SELECT " + strings.Join(locks, ", ") + ") AS locks)"
	}
	db.Drawing(ctx)
	q := tx.NewSelect().Model(&row.Round).ColumnExpr("round.*").ColumnExpr(next+" AS next_offset", args...)
	err := q.Where("closed_at IS NULL").Order("number DESC").Limit(1).Scan(ctx, &row)
	if err != nil {
		return nil, 0, fmt.Errorf("begin update: %w", Normalize(err))
	}
	db.Drew(ctx, row.Next)
	return &row.Round, row.Next, nil
}

// BeginClaim is BeginUpdate for a command with a deduplication key: in the
// same round trip it first tries the transaction-scoped lock on claimKey
// without waiting (Postgres). When another transaction holds that key it
// returns claimed false, having taken neither lockKeys nor an offset, so
// a concurrent duplicate is answered at once instead of queuing. The
// command's stored result must be read by a later statement: this one's
// snapshot predates its locks.
func (db *DB) BeginClaim(ctx context.Context, tx bun.Tx, claimKey string, lockKeys ...string) (*Round, int64, bool, error) {
	r, offsets, err := db.BeginClaims(ctx, tx, []Claim{{Key: claimKey, Locks: lockKeys}})
	if err != nil {
		return nil, 0, false, err
	}
	return r, offsets[0], offsets[0] != 0, nil
}

// Claim is one command's part of BeginClaims: its deduplication key, tried
// without waiting, and the locks it needs once claimed.
type Claim struct {
	Key   string
	Locks []string
}

// BeginClaims is BeginClaim for several commands sharing one database
// transaction (a batch), still in one round trip: each key is tried
// without waiting, the locks of the claimed commands are taken in sorted
// order (so batches and single commands cannot deadlock one another),
// and then an offset is drawn for each claimed command. offsets[i] is
// claims[i]'s offset, or 0 when another transaction holds its key.
func (db *DB) BeginClaims(ctx context.Context, tx bun.Tx, claims []Claim) (*Round, []int64, error) {
	if db.Engine != Postgres {
		// Write transactions are exclusive: every claim succeeds.
		r, next, err := db.BeginUpdate(ctx, tx)
		if err != nil {
			return nil, nil, err
		}
		offsets := make([]int64, len(claims))
		for i := range offsets {
			offsets[i] = next + int64(i)
		}
		return r, offsets, nil
	}
	db.Drawing(ctx)
	rows, err := tx.Tx.QueryContext(ctx, claimsSQL, CachedStatement(ClaimsArgs(claims)...)...)
	if err != nil {
		return nil, nil, fmt.Errorf("begin update: %w", Normalize(err))
	}
	defer rows.Close()
	r, offsets, err := ScanClaims(rows, len(claims))
	if err != nil {
		return nil, nil, fmt.Errorf("begin update: %w", Normalize(err))
	}
	db.Drew(ctx, offsets...)
	return r, offsets, nil
}

// ClaimsArgs are the arguments of claimsSQL (BeginClaims on Postgres) and
// of claimSendsSQL: the keys, and the claimed commands' lock keys sorted,
// each with the (1-based) claim it belongs to.
func ClaimsArgs(claims []Claim) []any {
	keys := make([]string, len(claims))
	type lock struct {
		key   string
		claim int64
	}
	var locks []lock
	for i, c := range claims {
		keys[i] = c.Key
		for _, k := range c.Locks {
			locks = append(locks, lock{k, int64(i + 1)})
		}
	}
	slices.SortFunc(locks, func(a, b lock) int { return strings.Compare(a.key, b.key) })
	lockKeys, lockClaims := make([]string, len(locks)), make([]int64, len(locks))
	for i, l := range locks {
		lockKeys[i], lockClaims[i] = l.key, l.claim
	}
	return []any{keys, lockKeys, lockClaims}
}

// claimsSQL calls the function ccwallet_claim (migrations 0015, 0017); its
// text is the same for any batch.
const claimsSQL = `SELECT * FROM ccwallet_claim($1::text[], $2::text[], $3::bigint[])`

// RowScanner is what database/sql's rows and pgx's have in common, so
// one hand-written scan serves both (bun's reflection was a tenth of the
// hot path's CPU in the Go process).
type RowScanner interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// ScanClaims reads claimsSQL's answer for n claims: the open round and
// each claim's offset, 0 for a key held elsewhere.
func ScanClaims(rows RowScanner, n int) (*Round, []int64, error) {
	var r Round
	offsets := make([]int64, n)
	got := 0
	for rows.Next() {
		var i int64
		var next sql.NullInt64
		if err := rows.Scan(&r.Number, &r.ContractID, &r.Price, &r.OpensAt, &r.TargetClosesAt, &r.ClosedAt, &i, &next); err != nil {
			return nil, nil, err
		}
		if got >= n || i != int64(got+1) {
			return nil, nil, fmt.Errorf("claim %d answered as %d", got+1, i)
		}
		offsets[got] = next.Int64
		got++
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	if got != n {
		return nil, nil, fmt.Errorf("%d claims answered for %d: %w", got, n, ErrNotFound)
	}
	return &r, offsets, nil
}
