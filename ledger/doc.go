// Package ledger is the coin's core: what money depends on (a change's
// one database transaction, Ledger.change and its txn; holdings with their
// holding fee; transfers; rounds and the network rules; conservation;
// offers, instructions, preapprovals and the batching of one-step sends)
// and Tx, the change type with which the workflow packages built on it
// (ledger/subscriptions, ledger/allocations, ... wired by ledger/workflows)
// make their changes. It owns every database transaction; handlers and
// jobs call it and never the store, so a rule lives here once and the web
// pages, the JSON APIs and the automations share it.
//
// How one change runs, from the request to the commit, how the update
// log keeps it auditable (CheckConservation, pruning), the batch of
// one-step sends (the one ledger transaction not run by Ledger.change)
// and which file of the core holds which rule are told once, in
// docs/architecture.md ("A ledger change's life", "The fast path", "The
// core's files").
package ledger
