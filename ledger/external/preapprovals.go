package external

import (
	"context"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
)

// External parties' preapprovals (validator-internal.yaml, SPLICE-NOTES
// a.3): the reads. Creating a setup proposal, and preparing the
// acceptance and one-step sends an external party signs, are in
// prepared.go; their executors in preapproval_kinds.go.

// SetupProposals lists the pending ExternalPartySetupProposals this
// validator made.
func (s *Service) SetupProposals(ctx context.Context) ([]ledger.Contract, error) {
	cs, err := s.setupProposals(ctx, s.l.DB(), "")
	if err != nil {
		return nil, err
	}
	out := make([]ledger.Contract, len(cs))
	for i, c := range cs {
		out[i] = s.l.ContractView(c)
	}
	return out, nil
}

// TransferCommandCounter is an external sender's nonce counter.
type TransferCommandCounter struct {
	Contract  ledger.Contract
	NextNonce int64
}

// TransferCommandCounter returns sender's counter; fault.ErrNotFound
// means sender has never sent through a preapproval and its next nonce
// is 0.
func (s *Service) TransferCommandCounter(ctx context.Context, sender coin.PartyID) (TransferCommandCounter, error) {
	c, n, err := counter(ctx, s.l.DB(), sender)
	if err != nil {
		return TransferCommandCounter{}, err
	}
	return TransferCommandCounter{Contract: s.l.ContractView(c), NextNonce: n}, nil
}
