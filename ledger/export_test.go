package ledger

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/ledger/coin"
	"github.com/uptrace/bun"
)

// MintLocked mints a holding locked until expires, for tests of lock
// expiry that must not depend on the transfer-instruction workflow.
func (l *Ledger) MintLocked(ctx context.Context, party coin.PartyID, amount coin.Amount, expires time.Time) (coin.ContractID, error) {
	var cid coin.ContractID
	err := l.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		t, err := l.beginTxn(ctx, tx, "mint")
		if err != nil {
			return err
		}
		t.minted = t.minted.Add(amount)
		cid = t.newHolding(party, amount, &Lock{Holder: string(l.dso), ExpiresAt: expires, Context: "test"})
		return t.commit(ctx)
	})
	return cid, err
}
