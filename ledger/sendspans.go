package ledger

import "time"

// Stages of a batched one-step send, reported to the Observer (as
// ccwallet_ledger_operation_duration_seconds by kind) so where a send's
// time goes can be measured on the running binary (bench/NOTES.md):
//   - send.wait: per send, from queued until a worker takes its batch
//     (the running batch ahead of it and the gather wait);
//   - send.read: per batch, the first round trip (claims, locks, offsets,
//     reads) from the start of the batch's transaction;
//   - send.write: per batch, the second (the write with the commit and
//     its WAL flush);
//   - send.batch: per batch, the whole transaction, the rule included.
const (
	spanSendWait  = "send.wait"
	spanSendRead  = "send.read"
	spanSendWrite = "send.write"
	spanSendBatch = "send.batch"
)

// span reports to o (Config.Observer, nil for none) the stage kind that
// started at t0.
func span(o Observer, kind string, t0 time.Time) {
	if o != nil {
		o.LedgerOp(kind, time.Since(t0), nil)
	}
}
