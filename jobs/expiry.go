package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/ccwallet/ccwallet/ledger/workflows"
)

// DefaultExpiryInterval is how often expired offers and instructions end;
// Splice's polling interval.
const DefaultExpiryInterval = 30 * time.Second

// Expiry ends transfer offers and transfer instructions past their expiry
// (the real ExpireTransferOfferTrigger and the registry's expiry): locked
// coin of an instruction, an allocation or an accepted app payment returns
// to its sender; names past their expiry are freed. Each runs even if
// another fails.
func Expiry(w *workflows.Set, every time.Duration) Job {
	return Job{Name: "expire-transfers", Every: every, Run: func(ctx context.Context) error {
		_, oerr := w.Expiry.Offers(ctx)
		_, ierr := w.Expiry.Instructions(ctx)
		_, aerr := w.Allocations.ExpireAllocations(ctx)
		_, perr := w.AppPayments.ExpireAppPayments(ctx)
		_, nerr := w.Names.ExpireAnsEntries(ctx)
		return errors.Join(oerr, ierr, aerr, perr, nerr)
	}}
}
