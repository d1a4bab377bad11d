package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// MaxAirdropRecipients bounds one airdrop: it is one batched call, and the
// docs batch about 100 merges per call (the rules' MaxNumOutputs bounds it
// too, as all shares leave in one transfer).
const MaxAirdropRecipients = 100

// AirdropShare is one recipient's part of an airdrop.
type AirdropShare struct {
	Party  coin.PartyID
	Amount coin.Amount
}

// AirdropRequest is an airdrop: the shares, the description every share's
// history shows, and an optional command id that makes a retry safe.
type AirdropRequest struct {
	Shares      []AirdropShare
	Description string
	// CommandID, when set, makes the airdrop happen once: a retry with the
	// same id answers the first airdrop's result and pays nobody again.
	CommandID string
}

// AirdropResult says what an airdrop did.
type AirdropResult struct {
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
func (l *Ledger) Airdrop(ctx context.Context, req AirdropRequest) (AirdropResult, error) {
	shares, description := req.Shares, req.Description
	res := AirdropResult{Total: coin.Zero, Fees: coin.Zero}
	limit := min(MaxAirdropRecipients, l.rules.MaxNumOutputs)
	switch {
	case len(shares) == 0:
		return res, invalid("recipients", "at least one recipient is needed")
	case len(shares) > limit:
		return res, invalid("recipients", "at most %d recipients per airdrop", limit)
	}
	if err := checkText("description", description); err != nil {
		return res, err
	}
	if err := checkID("command_id", req.CommandID); err != nil {
		return res, err
	}
	parties := make([]coin.PartyID, 0, len(shares)+1)
	seen := make(map[coin.PartyID]bool, len(shares))
	for i, s := range shares {
		field := fmt.Sprintf("recipients[%d]", i)
		switch {
		case s.Party == "":
			return res, invalid(field+".party_id", "is required")
		case s.Party == l.operator:
			return res, invalid(field+".party_id", "the operator cannot airdrop to itself")
		case seen[s.Party]:
			return res, invalid(field+".party_id", "%s is listed twice", s.Party)
		}
		if err := checkAmount(field+".amount", s.Amount); err != nil {
			return res, err
		}
		seen[s.Party] = true
		parties = append(parties, s.Party)
		res.Total = res.Total.Add(s.Amount)
	}
	parties = append(parties, l.operator)
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		tx := c.tx
		res.Fees, res.Merges, res.MergedInputs = coin.Zero, 0, 0
		key := "airdrop:" + req.CommandID
		if req.CommandID != "" {
			prev, err := l.claimCommand(ctx, tx, key)
			if err != nil {
				return err
			}
			if prev != nil {
				return json.Unmarshal([]byte(prev.Result), &res)
			}
		}
		t, err := c.begin(ctx, "airdrop", parties...)
		if err != nil {
			return err
		}
		pas := make([]*store.TransferPreapproval, len(shares))
		featured := map[coin.PartyID]bool{}
		outs := make([]Output, len(shares))
		for i, s := range shares {
			active, err := store.MergeDelegationsOf(ctx, tx, s.Party, MergeActive)
			if err != nil {
				return err
			}
			if len(active) == 0 {
				return fmt.Errorf("%w: %s has no active merge delegation; an airdrop goes only to parties that let the provider merge their holdings", ErrConflict, s.Party)
			}
			if pas[i], err = l.validPreapproval(ctx, tx, s.Party); err != nil {
				if IsValidation(err) {
					return invalid(fmt.Sprintf("recipients[%d].party_id", i), "%s has no valid transfer preapproval, which the airdrop is sent through", s.Party)
				}
				return err
			}
			prov := pas[i].Provider
			if _, ok := featured[prov]; !ok {
				if featured[prov], err = isFeatured(ctx, tx, prov); err != nil {
					return err
				}
			}
			outs[i] = Output{Receiver: s.Party, Amount: s.Amount}
		}
		r, err := t.transfer(ctx, l.operator, outs)
		if err != nil {
			return err
		}
		res.Fees = r.Fees.Add(r.HoldingFees)
		for i, s := range shares {
			// Each share's history is its own send: its output, its fee;
			// the inputs' holding fees show on the first.
			share := &TransferResult{Outputs: r.Outputs[i : i+1], Fees: l.rules.OutputFee(s.Amount, t.round.Price, false), HoldingFees: coin.Zero}
			if i == 0 {
				share.Inputs, share.HoldingFees = r.Inputs, r.HoldingFees
			}
			t.preapprovedSent(l.operator, pas[i], featured[pas[i].Provider], s.Amount, share, description)
		}
		for _, s := range shares {
			n, err := store.CountUnlockedHoldings(ctx, tx, s.Party)
			if err != nil {
				return err
			}
			// With the share (not yet in the table) it holds n+1.
			if n+1 <= MergeTarget {
				continue
			}
			hs, err := store.UnlockedHoldingsOf(ctx, tx, s.Party, min(l.rules.MaxNumInputs, n+2-MergeTarget))
			if err != nil {
				return err
			}
			ids := make([]coin.ContractID, len(hs))
			for i, h := range hs {
				ids[i] = h.ContractID
			}
			_, used, err := t.mergeInputs(ctx, s.Party, ids, mergeGoal{target: MergeTarget, subtype: MergeHistorySubtype, featured: true})
			if err != nil {
				return err
			}
			if used > 0 {
				res.Merges++
				res.MergedInputs += used
			}
		}
		res.UpdateID = t.update
		if req.CommandID != "" {
			stored := mustJSON(res)
			t.afterCommit(func(ctx context.Context) error { return l.saveCommand(ctx, t, key, l.operator, "airdrop", stored) })
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrInsufficientFunds) {
			return AirdropResult{}, &Problem{Err: err, Msg: fmt.Sprintf("the operator's wallet cannot pay the airdrop of %s CC to %d parties and its fees (%s)",
				humanCC(res.Total), len(shares), problemWords(err))}
		}
		return AirdropResult{}, fmt.Errorf("airdrop to %d parties: %w", len(shares), err)
	}
	return res, nil
}
