// Package pgbatch is the Postgres fast path of ledger commits: every
// commit's rows in one prepared statement of arrays (write.go), whose
// columns come from the store's bun models, and the one-step send batch's
// transaction on a pgx connection of its own (pipe.go), which claims,
// locks and reads every send of a batch with BEGIN in one round trip and
// writes them with COMMIT in another (read.go, write.go).
//
// It knows the store's rows and Postgres, and nothing of the ledger's
// rules: the ledger takes a store.Writer from For once, when it opens,
// and runs the same rules on either engine.
package pgbatch

import "github.com/ccwallet/ccwallet/store"

// Writer is the store.Writer of a Postgres database.
type Writer struct{ db *store.DB }

// For is db's store.Writer: a Writer on Postgres, db.Plain() on other
// engines. The one place the choice is made.
func For(db *store.DB) store.Writer {
	if db.Engine != store.Postgres {
		return db.Plain()
	}
	return &Writer{db: db}
}

// Groups is true: concurrent sends share a transaction (group commit).
func (x *Writer) Groups() bool { return true }
