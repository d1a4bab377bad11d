// Package airdrop owns the provider's airdrop with auto-merge: one
// ledger transaction that pays many delegating parties through their
// transfer preapprovals and merges their holdings under their merge
// delegations (Splice's BatchMergeUtility_BatchMerge).
package airdrop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
)

// Service is the airdrop of one ledger.
type Service struct{ l *ledger.Ledger }

// New builds l's airdrop.
func New(l *ledger.Ledger) *Service { return &Service{l: l} }

// MaxRecipients bounds one airdrop: it is one batched call, and the
// docs batch about 100 merges per call (the rules' MaxNumOutputs bounds it
// too, as all shares leave in one transfer).
const MaxRecipients = 100

// Share is one recipient's part of an airdrop.
type Share struct {
	Party  coin.PartyID
	Amount coin.Amount
}

// Request is an airdrop: the shares, the description every share's
// history shows, and an optional command id that makes a retry safe.
type Request struct {
	Shares      []Share
	Description string
	// CommandID, when set, makes the airdrop happen once: a retry with the
	// same id answers the first airdrop's result and pays nobody again.
	CommandID string
}

// Result says what an airdrop did.
type Result struct {
	UpdateID string
	// Total is what the recipients received; Fees what the operator paid
	// on top (transfer fees, and the holding fees of its inputs).
	Total        coin.Amount
	Fees         coin.Amount
	Merges       int
	MergedInputs int
}

// Airdrop is the provider's airdrop with auto-merge, the
// BatchMergeUtility_BatchMerge whose calls each carry an extra transfer
// and a merge: in one ledger transaction the operator sends every
// recipient its share through the recipient's transfer preapproval (one
// transfer, so the operator's change carries from share to share), and
// merges the recipient's holdings under its merge delegation so that, with
// the new one, it holds at most MergeTarget (as far as one merge of
// MaxNumInputs inputs goes). Every recipient needs an active merge
// delegation and a valid preapproval; any refusal, or too little coin,
// leaves nothing done. A featured preapproval provider earns an app
// reward per share, and the featured operator one per merge. Each share
// shows in history as a TransferPreapprovalSend and each merge as a
// MergeHistorySubtype row, as the batch's calls would.
func (s *Service) Airdrop(ctx context.Context, req Request) (Result, error) {
	l := s.l
	operator, rules := l.Operator(), l.Rules()
	shares, description := req.Shares, req.Description
	res := Result{Total: coin.Zero, Fees: coin.Zero}
	limit := min(MaxRecipients, rules.MaxNumOutputs)
	switch {
	case len(shares) == 0:
		return res, fault.Invalid("recipients", "at least one recipient is needed")
	case len(shares) > limit:
		return res, fault.Invalid("recipients", "at most %d recipients per airdrop", limit)
	}
	if err := bounds.CheckText("description", description); err != nil {
		return res, err
	}
	if err := bounds.CheckID("command_id", req.CommandID); err != nil {
		return res, err
	}
	parties := make([]coin.PartyID, 0, len(shares)+1)
	seen := make(map[coin.PartyID]bool, len(shares))
	for i, s := range shares {
		field := fmt.Sprintf("recipients[%d]", i)
		switch {
		case s.Party == "":
			return res, fault.Invalid(field+".party_id", "is required")
		case s.Party == operator:
			return res, fault.Invalid(field+".party_id", "the operator cannot airdrop to itself")
		case seen[s.Party]:
			return res, fault.Invalid(field+".party_id", "%s is listed twice", s.Party)
		}
		if err := bounds.CheckAmount(field+".amount", s.Amount); err != nil {
			return res, err
		}
		seen[s.Party] = true
		parties = append(parties, s.Party)
		res.Total = res.Total.Add(s.Amount)
	}
	parties = append(parties, operator)
	err := l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		tx := x.DB()
		res.Fees, res.Merges, res.MergedInputs = coin.Zero, 0, 0
		key := "airdrop:" + req.CommandID
		if req.CommandID != "" {
			prev, err := x.ClaimCommand(ctx, key)
			if err != nil {
				return err
			}
			if prev != nil {
				return json.Unmarshal([]byte(prev.Result), &res)
			}
		}
		if err := x.Begin(ctx, "airdrop", parties...); err != nil {
			return err
		}
		pas := make([]*store.TransferPreapproval, len(shares))
		featured := map[coin.PartyID]bool{}
		outs := make([]ledger.Output, len(shares))
		for i, s := range shares {
			active, err := store.MergeDelegationsOf(ctx, tx, s.Party, delegations.MergeActive)
			if err != nil {
				return err
			}
			if len(active) == 0 {
				return fmt.Errorf("%w: %s has no active merge delegation; an airdrop goes only to parties that let the provider merge their holdings", fault.ErrConflict, s.Party)
			}
			if pas[i], err = x.ValidPreapproval(ctx, s.Party); err != nil {
				if fault.IsValidation(err) {
					return fault.Invalid(fmt.Sprintf("recipients[%d].party_id", i), "%s has no valid transfer preapproval, which the airdrop is sent through", s.Party)
				}
				return err
			}
			prov := pas[i].Provider
			if _, ok := featured[prov]; !ok {
				if featured[prov], err = ledger.IsFeatured(ctx, tx, prov); err != nil {
					return err
				}
			}
			outs[i] = ledger.Output{Receiver: s.Party, Amount: s.Amount}
		}
		r, err := x.Transfer(ctx, operator, outs)
		if err != nil {
			return err
		}
		res.Fees = r.Fees.Add(r.HoldingFees)
		for i, s := range shares {
			// Each share's history is its own send: its output, its fee;
			// the inputs' holding fees show on the first.
			share := &ledger.TransferResult{Outputs: r.Outputs[i : i+1], Fees: rules.OutputFee(s.Amount, x.Round().Price, false), HoldingFees: coin.Zero}
			if i == 0 {
				share.Inputs, share.HoldingFees = r.Inputs, r.HoldingFees
			}
			x.PreapprovedSent(operator, pas[i], featured[pas[i].Provider], s.Amount, share, description)
		}
		for _, s := range shares {
			n, err := store.CountUnlockedHoldings(ctx, tx, s.Party)
			if err != nil {
				return err
			}
			// With the share (not yet in the table) it holds n+1.
			if n+1 <= ledger.MergeTarget {
				continue
			}
			hs, err := store.UnlockedHoldingsOf(ctx, tx, s.Party, min(rules.MaxNumInputs, n+2-ledger.MergeTarget))
			if err != nil {
				return err
			}
			ids := make([]coin.ContractID, len(hs))
			for i, h := range hs {
				ids[i] = h.ContractID
			}
			used, err := x.MergeDelegated(ctx, s.Party, ids)
			if err != nil {
				return err
			}
			if used > 0 {
				res.Merges++
				res.MergedInputs += used
			}
		}
		res.UpdateID = x.UpdateID()
		if req.CommandID != "" {
			stored, err := json.Marshal(res)
			if err != nil {
				return err
			}
			x.SaveCommand(commands.Command{Key: key}, operator, "airdrop", string(stored))
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, fault.ErrInsufficientFunds) {
			return Result{}, &fault.Problem{Err: err, Msg: fmt.Sprintf("the operator's wallet cannot pay the airdrop of %s CC to %d parties and its fees (%s)",
				ledger.HumanCC(res.Total), len(shares), fault.ProblemWords(err))}
		}
		return Result{}, fmt.Errorf("airdrop to %d parties: %w", len(shares), err)
	}
	return res, nil
}
