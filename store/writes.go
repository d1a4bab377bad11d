package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/schema"
)

// Writes are the rows a commit of ledger transactions writes, one list per
// table; a commit's other changes (its claims, guarded archives) ran
// before.
type Writes struct {
	Updates []Update
	// Spend are holdings to spend (as SpendHoldings), each unlocked and
	// live, Spend[i] at offset SpendAt[i]: fewer than all available fails
	// the write with ErrStale. Postgres only (the ledger defers a spend
	// only there).
	Spend     []coin.ContractID
	SpendAt   []int64
	Contracts []Contract
	Holdings  []Holding
	History   []HistoryEntry
	Coupons   []RewardCoupon
	// Forget are deduplication keys whose window has passed, deleted
	// before Commands are inserted, which may use them again.
	Forget   []string
	Commands []Command
}

// WriteTx writes w in tx: on Postgres in one round trip (two when it
// forgets commands), on SQLite as a batch of statements.
func WriteTx(ctx context.Context, tx bun.Tx, w *Writes) error {
	if w.empty() {
		return nil
	}
	if tx.Dialect().Name() != dialect.PG {
		if len(w.Spend) > 0 {
			return errSpendNeedsPostgres
		}
		return execBatch(ctx, tx, w.statements(tx))
	}
	// Without sendBatchSettings, which would cost a round trip of their
	// own here (database/sql sends one statement at a time): the generic
	// plan comes from the tables' statistics then, and is made again
	// after each analyze of them.
	var err error
	if len(w.Forget) > 0 {
		_, err = tx.Tx.ExecContext(ctx, forgetCommandsSQL, cachedStatement(w.Forget)...)
	}
	if err == nil {
		// Prepared once per connection: the connection's default is the
		// simple protocol, which would parse and plan it every time.
		_, err = tx.Tx.ExecContext(ctx, writeSQL, cachedStatement(w.args()...)...)
	}
	if err != nil {
		return fmt.Errorf("write: %w", Normalize(err))
	}
	return nil
}

func (w *Writes) empty() bool {
	return w == nil || len(w.Updates)+len(w.Spend)+len(w.Contracts)+len(w.Holdings)+
		len(w.History)+len(w.Coupons)+len(w.Forget)+len(w.Commands) == 0
}

// statements are w as bun statements, for SQLite, where a spend is never
// deferred.
func (w *Writes) statements(db bun.IDB) []schema.QueryAppender {
	insert := func(model any) *bun.InsertQuery { return db.NewInsert().Model(model).Returning("") }
	var batch []schema.QueryAppender
	if len(w.Updates) > 0 {
		batch = append(batch, insert(&w.Updates))
	}
	if len(w.Contracts) > 0 {
		batch = append(batch, insert(&w.Contracts))
	}
	if len(w.Holdings) > 0 {
		batch = append(batch, insert(&w.Holdings))
	}
	if len(w.History) > 0 {
		batch = append(batch, insert(&w.History))
	}
	if len(w.Coupons) > 0 {
		batch = append(batch, insert(&w.Coupons))
	}
	if len(w.Forget) > 0 {
		batch = append(batch, db.NewDelete().Table("commands").Where("dedup_key IN (?)", bun.In(w.Forget)))
	}
	if len(w.Commands) > 0 {
		batch = append(batch, insert(&w.Commands))
	}
	return batch
}

// execBatch runs SQLite's write statements in one call, rendered by bun
// with their values inlined, into one text, so they bypass bun's
// placeholder formatting.
func execBatch(ctx context.Context, tx bun.Tx, queries []schema.QueryAppender) error {
	if len(queries) == 0 {
		return nil
	}
	gen := schema.NewQueryGen(tx.Dialect())
	var b []byte
	for i, q := range queries {
		if i > 0 {
			b = append(b, ";\n"...)
		}
		var err error
		if b, err = q.AppendQuery(gen, b); err != nil {
			return fmt.Errorf("write batch: %w", err)
		}
	}
	if _, err := tx.Tx.ExecContext(ctx, string(b)); err != nil {
		return fmt.Errorf("write batch: %w", Normalize(err))
	}
	return nil
}

// errSpendNeedsPostgres: a deferred spend reached the SQLite writer.
var errSpendNeedsPostgres = errors.New("write: a deferred spend needs Postgres")

// forgetCommandsSQL deletes the commands of Writes.Forget. It runs before
// writeSQL, not inside it: the sub-statements of one statement run in no
// set order, and the insert of a reused key must come after its delete.
const forgetCommandsSQL = `DELETE FROM commands WHERE dedup_key = ANY($1::text[])`

// writeSQL writes a Writes on Postgres as one statement with an array per
// column, so its text is the same for any number of rows: each connection
// prepares and plans it once, where a statement per table with the values
// inlined was parsed and planned on every commit (a third of Postgres's
// time for a send's write). Amounts travel as text, cast to numeric. Its
// last step is the spend's guard, which raises ErrStale's code when fewer
// holdings were spent than asked, failing the whole statement. The
// spend's ANY is the index condition: the join alone let a generic plan
// read every holding.
const writeSQL = `WITH spent AS (
	DELETE FROM holdings AS h USING unnest($1::text[], $2::bigint[]) AS s(id, at)
	WHERE h.contract_id = ANY($1::text[]) AND h.contract_id = s.id AND h.lock_holder IS NULL
	RETURNING h.contract_id, h.owner, h.amount, h.created_round, h.rate, h.created_offset, s.at
), ins_spent AS (
	INSERT INTO spent_holdings (contract_id, owner, amount, created_round, rate, created_offset, spent_offset)
	SELECT * FROM spent
), ins_updates AS (
	INSERT INTO updates (offset_id, update_id, kind, submitter, round, record_time, minted, burned, traffic_bytes)
	SELECT * FROM unnest($3::bigint[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::timestamptz[], $9::text[]::numeric[], $10::text[]::numeric[], $11::bigint[])
), ins_contracts AS (
	INSERT INTO contracts (contract_id, template_id, payload, stakeholders, synchronizer_id, created_offset, archived_offset, created_at)
	SELECT * FROM unnest($12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::bigint[], $18::bigint[], $19::timestamptz[])
), ins_holdings AS (
	INSERT INTO holdings (contract_id, owner, amount, created_round, rate, lock_holder, lock_expires_at, lock_context, created_offset, created_at)
	SELECT * FROM unnest($20::text[], $21::text[], $22::text[]::numeric[], $23::bigint[], $24::text[]::numeric[], $25::text[], $26::timestamptz[], $27::text[], $28::bigint[], $29::timestamptz[])
), ins_history AS (
	INSERT INTO history (offset_id, party, kind, subtype, counterparty, amount, fees, description, round, record_time, details, counter_amount, counter_fees)
	SELECT * FROM unnest($30::bigint[], $31::text[], $32::text[], $33::text[], $34::text[], $35::text[]::numeric[], $36::text[]::numeric[], $37::text[], $38::bigint[], $39::timestamptz[], $40::text[], $41::text[]::numeric[], $42::text[]::numeric[])
), ins_coupons AS (
	INSERT INTO reward_coupons (contract_id, kind, beneficiary, amount, round, featured, collected_at, created_offset, created_at, collected_offset)
	SELECT * FROM unnest($43::text[], $44::text[], $45::text[], $46::text[]::numeric[], $47::bigint[], $48::boolean[], $49::timestamptz[], $50::bigint[], $51::timestamptz[], $52::bigint[])
), ins_commands AS (
	INSERT INTO commands (dedup_key, party, kind, offset_id, result, created_at)
	SELECT * FROM unnest($53::text[], $54::text[], $55::text[], $56::bigint[], $57::text[], $58::timestamptz[])
)
SELECT ccwallet_spent((SELECT count(*) FROM spent), cardinality($1::text[]))`

// args are writeSQL's arguments for w, in its parameters' order.
func (w *Writes) args() []any {
	args := []any{ids(w.Spend), w.SpendAt}
	n := len(w.Updates)
	var (
		uOffset, uRound, uTraffic       = make([]int64, n), make([]int64, n), make([]int64, n)
		uID, uKind, uSub, uMint, uBurnt = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		uTime                           = make([]time.Time, n)
	)
	for i, u := range w.Updates {
		uOffset[i], uID[i], uKind[i], uSub[i], uRound[i] = u.OffsetID, u.UpdateID, u.Kind, u.Submitter, int64(u.Round)
		uTime[i], uMint[i], uBurnt[i], uTraffic[i] = u.RecordTime, u.Minted.String(), u.Burned.String(), u.TrafficBytes
	}
	args = append(args, uOffset, uID, uKind, uSub, uRound, uTime, uMint, uBurnt, uTraffic)

	n = len(w.Contracts)
	var (
		cID, cTmpl, cPayload, cStake, cSync = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		cCreated                            = make([]int64, n)
		cArchived                           = make([]*int64, n)
		cAt                                 = make([]time.Time, n)
	)
	for i, c := range w.Contracts {
		cID[i], cTmpl[i], cPayload[i], cStake[i], cSync[i] = string(c.ContractID), c.TemplateID, c.Payload, c.Stakeholders, c.SynchronizerID
		cCreated[i], cArchived[i], cAt[i] = c.CreatedOffset, c.ArchivedOffset, c.CreatedAt
	}
	args = append(args, cID, cTmpl, cPayload, cStake, cSync, cCreated, cArchived, cAt)

	n = len(w.Holdings)
	var (
		hID, hOwner, hAmount, hRate = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		hRound                      = make([]int64, n)
		hLock, hLockCtx             = make([]*string, n), make([]*string, n)
		hLockExp                    = make([]*time.Time, n)
		hOffset                     = make([]int64, n)
		hAt                         = make([]time.Time, n)
	)
	for i, h := range w.Holdings {
		hID[i], hOwner[i], hAmount[i], hRound[i], hRate[i] = string(h.ContractID), string(h.Owner), h.Amount.String(), int64(h.CreatedRound), h.Rate.String()
		hLock[i], hLockExp[i], hLockCtx[i] = nullString(h.LockHolder), nullTime(h.LockExpiresAt), nullString(h.LockContext)
		hOffset[i], hAt[i] = h.CreatedOffset, h.CreatedAt
	}
	args = append(args, hID, hOwner, hAmount, hRound, hRate, hLock, hLockExp, hLockCtx, hOffset, hAt)

	n = len(w.History)
	var (
		eOffset, eRound                               = make([]int64, n), make([]int64, n)
		eParty, eKind, eSub, eCounter, eAmount, eFees = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		eDesc, eDetails                               = make([]string, n), make([]string, n)
		eTime                                         = make([]time.Time, n)
		eCAmount, eCFees                              = make([]*string, n), make([]*string, n)
	)
	for i, e := range w.History {
		eOffset[i], eParty[i], eKind[i], eSub[i], eCounter[i] = e.OffsetID, string(e.Party), e.Kind, e.Subtype, string(e.Counterparty)
		eAmount[i], eFees[i], eDesc[i], eRound[i], eTime[i], eDetails[i] = e.Amount.String(), e.Fees.String(), e.Description, int64(e.Round), e.RecordTime, e.Details
		eCAmount[i], eCFees[i] = nullAmount(e.CounterAmount), nullAmount(e.CounterFees)
	}
	args = append(args, eOffset, eParty, eKind, eSub, eCounter, eAmount, eFees, eDesc, eRound, eTime, eDetails, eCAmount, eCFees)

	n = len(w.Coupons)
	var (
		rID, rKind, rBen, rAmount = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		rRound                    = make([]int64, n)
		rFeatured                 = make([]bool, n)
		rCollected                = make([]*time.Time, n)
		rOffset                   = make([]int64, n)
		rAt                       = make([]time.Time, n)
		rCollectedOffset          = make([]*int64, n)
	)
	for i, r := range w.Coupons {
		rID[i], rKind[i], rBen[i], rAmount[i], rRound[i] = string(r.ContractID), r.Kind, string(r.Beneficiary), r.Amount.String(), int64(r.Round)
		rFeatured[i], rCollected[i] = r.Featured, nullTime(r.CollectedAt)
		rOffset[i], rAt[i], rCollectedOffset[i] = r.CreatedOffset, r.CreatedAt, r.CollectedOffset
	}
	args = append(args, rID, rKind, rBen, rAmount, rRound, rFeatured, rCollected, rOffset, rAt, rCollectedOffset)

	n = len(w.Commands)
	var (
		kKey, kParty, kKind, kResult = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		kOffset                      = make([]*int64, n)
		kAt                          = make([]time.Time, n)
	)
	for i, k := range w.Commands {
		kKey[i], kParty[i], kKind[i], kOffset[i], kResult[i], kAt[i] = k.DedupKey, string(k.Party), k.Kind, k.OffsetID, k.Result, k.CreatedAt
	}
	return append(args, kKey, kParty, kKind, kOffset, kResult, kAt)
}

func ids(cs []coin.ContractID) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c)
	}
	return out
}

// nullString is s, or NULL when empty (the models' nullzero strings).
func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nullAmount(a *coin.Amount) *string {
	if a == nil {
		return nil
	}
	s := a.String()
	return &s
}

func nullTime(t bun.NullTime) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t.Time
}
