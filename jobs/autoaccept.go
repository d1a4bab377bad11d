package jobs

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/autotransfer"
)

// AutoAccept is one autoAcceptTransfers entry's job: it accepts the
// receiver's incoming transfer offers and transfer instructions from the
// listed senders.
func AutoAccept(at *autotransfer.Service, receiver coin.PartyID, from []coin.PartyID, every time.Duration) Job {
	return Job{Name: "auto-accept-" + string(receiver), Every: every, Run: func(ctx context.Context) error {
		_, err := at.AutoAccept(ctx, receiver, from)
		return err
	}}
}
