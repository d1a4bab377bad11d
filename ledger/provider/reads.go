package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// view is p as the wallet and the APIs show it, with its contract.
func (s *Service) view(ctx context.Context, db bun.IDB, p *store.TransferPreapproval) (ledger.Preapproval, error) {
	c, err := store.ContractByID(ctx, db, p.ContractID)
	if err != nil {
		return ledger.Preapproval{}, err
	}
	return ledger.Preapproval{
		ContractID: p.ContractID, Receiver: p.Receiver, Provider: p.Provider, ValidFrom: p.ValidFrom,
		LastRenewedAt: p.LastRenewedAt, ExpiresAt: p.ExpiresAt, Contract: s.l.ContractView(c),
	}, nil
}

// Preapproval returns receiver's valid (live, unexpired) preapproval, or
// ErrNotFound: one-step sends to receiver are possible only with one.
func (s *Service) Preapproval(ctx context.Context, receiver coin.PartyID) (ledger.Preapproval, error) {
	p, err := s.LivePreapproval(ctx, receiver)
	if err != nil {
		return ledger.Preapproval{}, err
	}
	if !s.l.Now().Before(p.ExpiresAt) {
		return ledger.Preapproval{}, fmt.Errorf("transfer preapproval of %s expired at %s: %w", receiver, ledger.FormatTime(p.ExpiresAt), fault.ErrNotFound)
	}
	return p, nil
}

// LivePreapproval returns receiver's unarchived preapproval, expired or not.
func (s *Service) LivePreapproval(ctx context.Context, receiver coin.PartyID) (ledger.Preapproval, error) {
	db := s.l.DB()
	p, err := store.LiveTransferPreapproval(ctx, db, receiver)
	if err != nil {
		return ledger.Preapproval{}, err
	}
	return s.view(ctx, db, p)
}

// Preapprovals lists the live preapprovals this validator's operator
// provides.
func (s *Service) Preapprovals(ctx context.Context) ([]ledger.Preapproval, error) {
	db := s.l.DB()
	ps, err := store.LiveTransferPreapprovals(ctx, db, s.l.Operator(), time.Time{}, time.Time{})
	if err != nil {
		return nil, err
	}
	out := make([]ledger.Preapproval, 0, len(ps))
	for i := range ps {
		v, err := s.view(ctx, db, &ps[i])
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
