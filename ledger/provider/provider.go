// Package provider owns what the validator's automation does as the
// provider of its parties' transfer preapprovals, on the core: the
// TransferPreapprovalProposal a receiver signs through the Ledger API
// (Propose) and its acceptance by the operator, at once and by the
// validator's automation (Accept, AcceptAll: jobs.PreapprovalProposals),
// and the renewal of the preapprovals due (RenewDue, the real validator's
// RenewTransferPreapprovalTrigger: jobs.PreapprovalRenewal), and the
// reads of the preapprovals as the wallet and the APIs show them
// (Preapproval, LivePreapproval, Preapprovals: reads.go). The core keeps
// the preapprovals themselves: creating one and its fee (Tx.NewPreapproval,
// Preapprovals.FundProvider), renewing and cancelling one (Renew, RenewAs,
// Cancel, CancelAs) and sending through one.
package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
)

// TemplateTransferPreapprovalProposal is splice-wallet's proposal of a
// transfer preapproval: the receiver signs it and the provider's
// automation accepts it, paying the fee.
const TemplateTransferPreapprovalProposal = "#splice-wallet:Splice.Wallet.TransferPreapproval:TransferPreapprovalProposal"

// Service is the provider's workflows of one ledger.
type Service struct {
	l *ledger.Ledger
}

// New builds the provider's workflows on l.
func New(l *ledger.Ledger) *Service { return &Service{l: l} }

// Proposal is a TransferPreapprovalProposal's payload.
type Proposal struct {
	Receiver    coin.PartyID  `json:"receiver"`
	Provider    coin.PartyID  `json:"provider"`
	ExpectedDSO *coin.PartyID `json:"expectedDso"`
}

// Propose creates receiver's TransferPreapprovalProposal to provider,
// once per cmd's key. The proposal is then accepted as the validator's
// automation does: at once (and by AcceptAll if that fails); a receiver
// with a valid preapproval keeps it. A proposal naming another DSO, or a
// provider other than this validator's operator, is refused.
func (s *Service) Propose(ctx context.Context, p Proposal, cmd commands.Command) (coin.ContractID, error) {
	l := s.l
	if p.ExpectedDSO != nil && *p.ExpectedDSO != l.DSO() {
		return "", fmt.Errorf("%w: expectedDso %s is not this network's DSO %s", fault.ErrRequirement, *p.ExpectedDSO, l.DSO())
	}
	for _, q := range []coin.PartyID{p.Receiver, p.Provider} {
		if err := l.KnownParty(ctx, q); err != nil {
			return "", err
		}
	}
	if p.Provider != l.Operator() {
		return "", fault.Invalid("provider", "%s is not this validator's operator %s, whose automation accepts preapproval proposals", p.Provider, l.Operator())
	}
	var cid coin.ContractID
	err := l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		if err := x.ClaimOnce(ctx, cmd.Key); err != nil {
			return err
		}
		if err := x.LockParties(ctx, p.Receiver); err != nil {
			return err
		}
		if err := x.Begin(ctx, "transfer-preapproval-proposal"); err != nil {
			return err
		}
		cid = x.Create(TemplateTransferPreapprovalProposal, p, p.Receiver, p.Provider)
		if cmd.Key != "" {
			x.SaveCommand(cmd, p.Receiver, "transfer-preapproval-proposal", string(cid))
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("propose a transfer preapproval for %s: %w", p.Receiver, err)
	}
	if _, err := s.Accept(context.WithoutCancel(ctx), cid); err != nil {
		// The automation tries again.
		l.Logger().WarnContext(ctx, "accepting a transfer preapproval proposal failed", "contract_id", cid, "err", err)
	}
	return cid, nil
}

// Accept is the operator accepting proposal cid
// (TransferPreapprovalProposal_Accept): the proposal is archived and the
// receiver's preapproval created by the rule Preapprovals().Create runs,
// the operator paying its fee. A receiver with a valid preapproval keeps
// it.
func (s *Service) Accept(ctx context.Context, cid coin.ContractID) (coin.ContractID, error) {
	l := s.l
	if err := l.Preapprovals().FundProvider(ctx, l.Operator(), ledger.PreapprovalLifetime); err != nil {
		return "", fmt.Errorf("accept transfer preapproval proposal %s: %w", cid, err)
	}
	var out coin.ContractID
	err := l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		ct, err := store.ContractByID(ctx, x.DB(), cid)
		if errors.Is(err, store.ErrNotFound) || err == nil && (ct.TemplateID != TemplateTransferPreapprovalProposal || ct.ArchivedOffset != nil) {
			return fmt.Errorf("%w: no pending transfer preapproval proposal %s", fault.ErrNotFound, cid)
		} else if err != nil {
			return err
		}
		var p Proposal
		if err := json.Unmarshal([]byte(ct.Payload), &p); err != nil {
			return fmt.Errorf("decode %s: %w", cid, err)
		}
		if p.Provider != l.Operator() {
			return fmt.Errorf("%w: proposal %s names provider %s, not this validator's operator", fault.ErrForbidden, cid, p.Provider)
		}
		if err := x.LockParties(ctx, p.Receiver, p.Provider); err != nil {
			return err
		}
		if err := x.Begin(ctx, "accept-transfer-preapproval-proposal"); err != nil {
			return err
		}
		x.Archive(cid)
		out, _, err = x.NewPreapproval(ctx, p.Receiver, p.Provider, x.Now().Add(ledger.PreapprovalLifetime))
		return err
	})
	if err != nil {
		return "", fmt.Errorf("accept transfer preapproval proposal %s: %w", cid, err)
	}
	return out, nil
}

// AcceptAll accepts every pending proposal naming the operator, as the
// validator's automation does; it returns how many.
func (s *Service) AcceptAll(ctx context.Context) (int, error) {
	l := s.l
	cs, err := store.ActiveContractsByTemplate(ctx, l.DB(), TemplateTransferPreapprovalProposal, l.Operator())
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range cs {
		_, err := s.Accept(ctx, c.ContractID)
		switch {
		case err == nil:
			n++
		case errors.Is(err, fault.ErrNotFound), errors.Is(err, fault.ErrForbidden), errors.Is(err, store.ErrStale):
		default:
			return n, err
		}
	}
	return n, nil
}

// RenewDue renews every preapproval this validator provides that expires
// within ledger.PreapprovalRenewalWindow and has not expired (the real
// validator's RenewTransferPreapprovalTrigger). It returns how many it
// renewed.
func (s *Service) RenewDue(ctx context.Context) (int, error) {
	l := s.l
	now := l.Now()
	due, err := store.LiveTransferPreapprovals(ctx, l.DB(), l.Operator(), now, now.Add(ledger.PreapprovalRenewalWindow))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, p := range due {
		_, err := l.Preapprovals().Renew(ctx, p.ContractID)
		switch {
		case err == nil:
			n++
		case errors.Is(err, fault.ErrConflict), errors.Is(err, fault.ErrExpired):
			// Cancelled or renewed meanwhile, or expired since the query.
		default:
			return n, err
		}
	}
	return n, nil
}
