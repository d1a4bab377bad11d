package ledger

import (
	"context"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// OfferLimits bound what one sender can put in another party's offer
// list (issue 38: a stranger's free offers of 1e-10 CC each made a
// receiver's list megabytes long). With each offer also costing the
// validator's traffic, as every transaction does on the network, they keep
// a receiver's list short.
type OfferLimits struct {
	// MinAmount is the smallest amount an offer may carry; zero turns the
	// floor off (a development network's choice only: the configuration
	// refuses it in production).
	MinAmount coin.Amount
	// MaxOpenPerReceiver is how many open offers one sender may have to
	// one receiver at once.
	MaxOpenPerReceiver int
}

// DefaultOfferLimits are the limits when the configuration sets none.
var DefaultOfferLimits = OfferLimits{MinAmount: coin.FromInt(1), MaxOpenPerReceiver: 20}

// Limits returns the limits this ledger holds offers to.
func (of Offers) Limits() OfferLimits {
	l := of.l
	if l.cfg.Offers != nil {
		return *l.cfg.Offers
	}
	return DefaultOfferLimits
}

// checkFloor refuses an offer below the floor, in words.
func (of Offers) checkFloor(amount coin.Amount) error {
	if floor := of.Limits().MinAmount; amount.Cmp(floor) < 0 {
		return fault.Invalid("amount", "a transfer offer must be at least %s CC on this network, not %s CC; send a larger amount", HumanCC(floor), HumanCC(amount))
	}
	return nil
}

// checkCap refuses a new offer from sender to receiver once sender
// has the most open offers to receiver it may, in words. It takes the
// sender's lock, so two offers at once cannot both take the last place.
func (of Offers) checkCap(ctx context.Context, tx bun.Tx, sender, receiver coin.PartyID) error {
	l := of.l
	if err := l.LockParties(ctx, tx, sender); err != nil {
		return err
	}
	n, err := store.CountOpenOffers(ctx, tx, sender, receiver, OfferCreated)
	if err != nil {
		return err
	}
	if most := of.Limits().MaxOpenPerReceiver; n >= most {
		return fault.Invalid("receiver_party_id", "you already have %d open transfer offers to this party, the most one sender may have (%d); wait until they are accepted, rejected or expire, or withdraw some",
			n, most)
	}
	return nil
}
