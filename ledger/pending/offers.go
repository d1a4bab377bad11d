package pending

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
)

// OfferStatus returns the offer party sent (or received) with trackingID.
func (s *Service) OfferStatus(ctx context.Context, party coin.PartyID, trackingID string) (ledger.Offer, error) {
	o, err := store.TransferOfferByTracking(ctx, s.l.DB(), party, trackingID)
	if err != nil {
		return ledger.Offer{}, err
	}
	return ledger.OfferView(o), nil
}

// Offer returns one offer visible to party (its sender or receiver).
func (s *Service) Offer(ctx context.Context, party coin.PartyID, cid coin.ContractID) (ledger.Offer, error) {
	o, err := store.TransferOfferByID(ctx, s.l.DB(), cid)
	if err != nil {
		return ledger.Offer{}, err
	}
	if party != o.Sender && party != o.Receiver {
		return ledger.Offer{}, fmt.Errorf("transfer offer %s: %w", cid, fault.ErrNotFound)
	}
	return ledger.OfferView(o), nil
}

// Offers lists the open transfer offers party sends or receives, as
// contracts.
func (s *Service) Offers(ctx context.Context, party coin.PartyID) ([]ledger.Contract, error) {
	return s.activeContracts(ctx, ledger.TemplateTransferOffer, party)
}

// AcceptedOffers lists the accepted offers of party awaiting completion.
// Acceptance completes at once here, so the list is normally empty.
func (s *Service) AcceptedOffers(ctx context.Context, party coin.PartyID) ([]ledger.Contract, error) {
	return s.activeContracts(ctx, ledger.TemplateAcceptedTransferOffer, party)
}

func (s *Service) activeContracts(ctx context.Context, templateID string, party coin.PartyID) ([]ledger.Contract, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, s.l.DB(), templateID, party)
	if err != nil {
		return nil, err
	}
	out := make([]ledger.Contract, 0, len(cs))
	for i := range cs {
		out = append(out, s.l.ContractView(&cs[i]))
	}
	return out, nil
}
