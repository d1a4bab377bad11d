package ledger

import (
	"context"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// Incoming is what waits for a party's answer: the open transfer offers
// and pending transfer instructions it receives, oldest first (the
// allocation requests it has to allocate for are ledger/allocations'
// Awaiting).
type Incoming struct {
	Offers       []Offer
	Instructions []TransferInstruction
}

// Incoming lists the open transfer offers and pending transfer
// instructions party receives. Instructions come without their contract.
func (l *Ledger) Incoming(ctx context.Context, party coin.PartyID) (Incoming, error) {
	var in Incoming
	os, err := store.TransferOffersWith(ctx, l.db, "", party, OfferCreated)
	if err != nil {
		return Incoming{}, err
	}
	for i := range os {
		in.Offers = append(in.Offers, offerView(&os[i]))
	}
	tis, err := store.TransferInstructionsOf(ctx, l.db, party, string(InstructionPending))
	if err != nil {
		return Incoming{}, err
	}
	for i := range tis {
		if tis[i].Receiver == party {
			in.Instructions = append(in.Instructions, l.instructionView(&tis[i], nil))
		}
	}
	return in, nil
}

// PendingMark is a value that changes whenever an offer or instruction
// party sends or receives is created or leaves its open status
// (accepted, rejected, withdrawn, expired), and whenever an allocation
// request party trades in or an allocation it is party to comes or goes,
// so live updates can tell without reading the lists.
func (l *Ledger) PendingMark(ctx context.Context, party coin.PartyID) (string, error) {
	return store.PendingMark(ctx, l.db, party, OfferCreated, string(InstructionPending), TemplateOTCTrade, TemplateAmuletAllocation)
}
