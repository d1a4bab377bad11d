package store

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"
)

// Writes are the rows a commit of ledger transactions writes, one list per
// table; a commit's other changes (its claims, guarded archives) ran
// before.
type Writes struct {
	Updates []Update
	// Spend are holdings to spend (as SpendHoldings), each unlocked and
	// live, Spend[i] at offset SpendAt[i]: fewer than all available fails
	// the write with ErrStale.
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
	// Completions are the Ledger API completions of the commands.
	Completions []Completion
	// Touched are parties whose holdings the transactions spent or
	// deleted before the write (SpendHoldings, DeleteHoldings). The write
	// raises their holding versions, and those of the owners of Holdings
	// and Spend, as its last step.
	Touched []coin.PartyID
}

// Writer is how the ledger's commits reach the database, chosen once per
// database (store/pgbatch's For): on Postgres the one-statement write and
// the pipelined send batches of store/pgbatch, elsewhere Plain. The
// ledger holds one and never asks which engine it runs on.
type Writer interface {
	// WriteTx writes w inside tx: holdings spent (guarded: fewer than
	// all of Spend spent fails with ErrStale), then the rows inserted.
	WriteTx(ctx context.Context, tx bun.Tx, w *Writes) error
	// InSendTx runs fn in the database transaction of a batch of one-step
	// sends, retried as InTx retries: fn calls Begin first and Write
	// last, and the transaction commits once both succeeded.
	InSendTx(ctx context.Context, fn func(ctx context.Context, s SendTx) error) error
	// Groups reports whether concurrent sends gain by sharing one
	// transaction (not where write transactions are exclusive).
	Groups() bool
}

// SendTx is the database transaction of a batch of one-step sends.
type SendTx interface {
	// Begin claims the commands, locks the senders of those claimed and
	// draws their offsets, then reads every send (reads[i] is keys[i]'s);
	// offsets[i] is 0 when another transaction holds claims[i]'s key.
	Begin(ctx context.Context, claims []Claim, keys []PreapprovalSendKey, featuredTemplate string) (*Round, []int64, []PreapprovalSendReads, error)
	// Reads is where the batch's rule reads anything else (the open
	// rounds, rarely): the transaction, or outside it where the batch's
	// transaction takes no statements of its own.
	Reads() bun.IDB
	// Write writes w, the batch's last statement (a write of nothing
	// still ends the transaction).
	Write(ctx context.Context, w *Writes) error
}

// Plain is the Writer of plain bun statements, which either engine runs;
// SQLite's, whose write transactions are exclusive, so sends are not
// grouped.
func (db *DB) Plain() Writer { return plainWriter{db} }

type plainWriter struct{ db *DB }

func (p plainWriter) Groups() bool { return false }

func (p plainWriter) WriteTx(ctx context.Context, tx bun.Tx, w *Writes) error {
	return WriteStatements(ctx, tx, w)
}

func (p plainWriter) InSendTx(ctx context.Context, fn func(ctx context.Context, s SendTx) error) error {
	return p.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		return fn(ctx, plainSendTx{p.db, tx})
	})
}

// plainSendTx is a SendTx inside InTx (which commits).
type plainSendTx struct {
	db *DB
	tx bun.Tx
}

func (s plainSendTx) Begin(ctx context.Context, c []Claim, k []PreapprovalSendKey, featured string) (*Round, []int64, []PreapprovalSendReads, error) {
	r, offsets, err := s.db.BeginClaims(ctx, s.tx, c)
	if err != nil {
		return nil, nil, nil, err
	}
	reads, err := s.db.ReadPreapprovalSends(ctx, s.tx, k, featured)
	return r, offsets, reads, err
}

func (s plainSendTx) Reads() bun.IDB { return s.tx }

func (s plainSendTx) Write(ctx context.Context, w *Writes) error {
	return WriteStatements(ctx, s.tx, w)
}

// WriteStatements writes w in tx with a statement per table (the spends
// guarded as SpendHoldings, one statement per offset), the values inlined
// in one text, one call for the inserts.
func WriteStatements(ctx context.Context, tx bun.Tx, w *Writes) error {
	if w.Empty() {
		return nil
	}
	touched := w.RaisedOwners()
	for i := 0; i < len(w.Spend); {
		j := i + 1
		for j < len(w.Spend) && w.SpendAt[j] == w.SpendAt[i] {
			j++
		}
		owners, err := SpendHoldings(ctx, tx, w.Spend[i:j], w.SpendAt[i])
		if err != nil {
			return fmt.Errorf("write: %w", err)
		}
		touched = append(touched, owners...)
		i = j
	}
	batch := w.statements(tx)
	if q := raiseVersionsQuery(tx, touched); q != nil {
		batch = append(batch, q)
	}
	return execBatch(ctx, tx, batch)
}

// RaisedOwners are the parties whose holding versions the write raises
// besides the owners of the holdings it spends: Touched and the owners of
// the holdings it inserts.
func (w *Writes) RaisedOwners() []coin.PartyID {
	out := append(make([]coin.PartyID, 0, len(w.Touched)+len(w.Holdings)), w.Touched...)
	for _, h := range w.Holdings {
		out = append(out, h.Owner)
	}
	return out
}

// Empty reports whether w writes nothing.
func (w *Writes) Empty() bool {
	return w == nil || len(w.Updates)+len(w.Spend)+len(w.Contracts)+len(w.Holdings)+
		len(w.History)+len(w.Coupons)+len(w.Forget)+len(w.Commands)+len(w.Completions)+len(w.Touched) == 0
}

// statements are w's inserts and deletes as bun statements.
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
		batch = append(batch, db.NewDelete().Table("commands").Where("dedup_key IN (?)", bun.List(w.Forget)))
	}
	if len(w.Commands) > 0 {
		batch = append(batch, insert(&w.Commands))
	}
	if len(w.Completions) > 0 {
		batch = append(batch, insert(&w.Completions))
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
