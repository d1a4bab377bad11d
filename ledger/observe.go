package ledger

import "time"

// Observer is told about every ledger transaction that reaches commit, so
// the composition root can count and time them (Prometheus) without this
// package knowing about metrics. Calls happen inside the database
// transaction and must be quick and never block. A transaction that InTx
// retries is reported once per attempt.
type Observer interface {
	LedgerOp(kind string, d time.Duration, err error)
}

// observe reports t to the configured observer, if any.
func (t *changes) observe(err error) {
	if o := t.l.cfg.Observer; o != nil {
		o.LedgerOp(t.kind, time.Since(t.started), err)
	}
}
