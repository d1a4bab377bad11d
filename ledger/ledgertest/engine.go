package ledgertest

import "github.com/ccwallet/ccwallet/store"

// Engine is one of Engines, named here so that test harnesses above the
// ledger (handlers/handlerstest) need not import the store.
type Engine = store.Dialect
