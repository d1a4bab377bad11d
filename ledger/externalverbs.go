package ledger

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// What ledger/external's workflows (the setup proposals, the prepared
// sends) need of the core besides Tx and Prepare.

// FundProvider makes sure provider can pay the preapproval fee for d (on
// a development network the faucet taps what is missing).
func FundProvider(ctx context.Context, l *Ledger, provider coin.PartyID, d time.Duration) error {
	return l.Preapprovals().fundProvider(ctx, provider, d)
}

// ValidPreapproval is receiver's live, unexpired TransferPreapproval; a
// receiver without one is a validation error.
func ValidPreapproval(ctx context.Context, l *Ledger, db bun.IDB, receiver coin.PartyID) (*store.TransferPreapproval, error) {
	return l.Preapprovals().valid(ctx, db, receiver)
}

// TransferCommandIDPrefix is the contract-id prefix of the TransferCommand
// the preapproval send b creates when executed.
func TransferCommandIDPrefix(b *PreparedBody) string { return transferCommandIDPrefix(b) }
