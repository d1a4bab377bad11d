package ledger

import (
	"context"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// IncomingOffersMax bounds the offers Incoming lists.
const IncomingOffersMax = 20

// Incoming is what waits for a party's answer: the open transfer offers
// (the newest) and pending transfer instructions it receives (the
// allocation requests it has to allocate for are ledger/allocations'
// Awaiting).
type Incoming struct {
	// Offers are the newest IncomingOffersMax open offers; OfferCount
	// counts them all.
	Offers       []Offer
	OfferCount   int
	Instructions []TransferInstruction
}

// Incoming lists the open transfer offers and pending transfer
// instructions party receives. Instructions come without their contract.
func (l *Ledger) Incoming(ctx context.Context, party coin.PartyID) (Incoming, error) {
	var in Incoming
	// Offers are bounded: any party can send them (issue 38).
	p, err := l.OffersPage(ctx, party, true, "", IncomingOffersMax)
	if err != nil {
		return Incoming{}, err
	}
	in.Offers, in.OfferCount = p.Offers, p.Total
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
// so live updates can tell without reading the lists; so do the app
// payments and subscriptions it pays or is paid by (names are paid by
// subscriptions), for the Payments, Subscriptions and Names pages.
func (l *Ledger) PendingMark(ctx context.Context, party coin.PartyID) (string, error) {
	return store.PendingMark(ctx, l.db, party, OfferCreated, string(InstructionPending), pendingMarkTemplates...)
}

// pendingMarkTemplates are the contracts whose coming and going
// PendingMark sees.
var pendingMarkTemplates = []string{TemplateOTCTrade, TemplateAmuletAllocation,
	TemplateAppPaymentRequest, TemplateAcceptedAppPayment,
	TemplateSubscriptionRequest, TemplateSubscriptionInitialPayment, TemplateSubscription,
	TemplateSubscriptionIdleState, TemplateSubscriptionPayment}
