package store

import (
	"context"
	"errors"
	"time"

	"github.com/ccwallet/ccwallet/coin"
)

// FastSender is a Writer that can run a batch of one-step sends in one
// round trip: BEGIN, the claims, the write and COMMIT together, on what the
// ledger read in earlier batches rather than on a read of its own. Postgres
// has it (store/pgbatch); where a Writer lacks it, every batch reads first.
type FastSender interface {
	// SendFast claims claims (every key must be claimed: one held elsewhere
	// fails it), checks f, writes w and commits, all or nothing. w's rows
	// carry -(i+1) wherever claims[i]'s offset belongs (its Spend's
	// SpendAt too); SendFast returns the offsets drawn, in claims' order.
	// An error wrapping ErrFastMiss means the database refused the batch
	// before its COMMIT (a guard, a duplicate key, a claim held
	// elsewhere): nothing was written, and the caller runs the batch again
	// the way that reads first. Any other error may have come after the
	// COMMIT was sent, as a Write's may.
	SendFast(ctx context.Context, claims []Claim, f FastSend, w *Writes) ([]int64, error)
}

// FastSend is what a fast batch's rule assumed, checked inside its
// transaction: that Round is the usable round at Now, that each
// Preapprovals[i] is live and expires at Expires[i], and that each
// Providers[i] holds a FeaturedTemplate contract exactly when Featured[i].
// The senders' holdings need no check of their own: the write's spend
// guard fails when one was spent or locked meanwhile.
type FastSend struct {
	Round            int64
	Now              time.Time
	Preapprovals     []coin.ContractID
	Expires          []time.Time
	Providers        []coin.PartyID
	Featured         []bool
	FeaturedTemplate string
}

// ErrFastMiss is SendFast's refusal: nothing was written.
var ErrFastMiss = errors.New("the batch's cached reads were stale")
