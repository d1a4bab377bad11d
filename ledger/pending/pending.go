// Package pending owns what waits for a party's answer, as the web
// wallet's home page and live updates read it: the open transfer offers
// and pending transfer instructions a party receives (Incoming), and the
// mark that changes whenever such a thing, or an allocation, app payment
// or subscription of the party, comes or goes (Mark); and the paged
// lists of a party's open offers and pending instructions, incoming or
// outgoing (OffersPage, OffersContractsPage: the Offers page and the
// wallet API's listTransferOffers; InstructionsPage, in, out or both: the
// Offers page and the API's listTokenStandardTransfers); and the reads of
// one offer or instruction and of the whole lists (Offer, OfferStatus,
// Offers, AcceptedOffers, TransferInstructionByID, TransferInstructions).
// Creating and moving offers and instructions is the core's.
package pending

import (
	"context"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	"github.com/ccwallet/ccwallet/ledger/payments"
	"github.com/ccwallet/ccwallet/store"
)

// Service is the pending reads of one ledger.
type Service struct {
	l *ledger.Ledger
}

// New builds l's pending reads.
func New(l *ledger.Ledger) *Service { return &Service{l: l} }

// MaxOffers bounds the offers Incoming lists.
const MaxOffers = 20

// Incoming is what waits for a party's answer: the open transfer offers
// (the newest) and pending transfer instructions it receives (the
// allocation requests it has to allocate for are ledger/allocations'
// Awaiting).
type Incoming struct {
	// Offers are the newest MaxOffers open offers; OfferCount
	// counts them all.
	Offers       []ledger.Offer
	OfferCount   int
	Instructions []ledger.TransferInstruction
}

// Incoming lists the open transfer offers and pending transfer
// instructions party receives. Instructions come without their contract.
func (s *Service) Incoming(ctx context.Context, party coin.PartyID) (Incoming, error) {
	l := s.l
	var in Incoming
	// Offers are bounded: any party can send them (issue 38).
	p, err := s.OffersPage(ctx, party, true, "", MaxOffers)
	if err != nil {
		return Incoming{}, err
	}
	in.Offers, in.OfferCount = p.Offers, p.Total
	tis, err := store.TransferInstructionsOf(ctx, l.DB(), party, string(ledger.InstructionPending))
	if err != nil {
		return Incoming{}, err
	}
	for i := range tis {
		if tis[i].Receiver == party {
			in.Instructions = append(in.Instructions, l.Instructions().View(&tis[i], nil))
		}
	}
	return in, nil
}

// Mark is a value that changes whenever an offer or instruction
// party sends or receives is created or leaves its open status
// (accepted, rejected, withdrawn, expired), and whenever an allocation
// request party trades in or an allocation it is party to comes or goes,
// so live updates can tell without reading the lists; so do the app
// payments and subscriptions it pays or is paid by (names are paid by
// subscriptions), for the Payments, Subscriptions and Names pages.
func (s *Service) Mark(ctx context.Context, party coin.PartyID) (string, error) {
	return store.PendingMark(ctx, s.l.DB(), party, ledger.OfferCreated, string(ledger.InstructionPending), markTemplates...)
}

// markTemplates are the contracts whose coming and going Mark sees.
var markTemplates = []string{allocationdata.TemplateOTCTrade, allocationdata.TemplateAmuletAllocation,
	payments.TemplateAppPaymentRequest, payments.TemplateAcceptedAppPayment,
	payments.TemplateSubscriptionRequest, payments.TemplateSubscriptionInitialPayment, payments.TemplateSubscription,
	payments.TemplateSubscriptionIdleState, payments.TemplateSubscriptionPayment}
