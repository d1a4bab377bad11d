package ledger

import (
	"context"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// SelfTransferRequest is a token-standard transfer whose receiver is its
// sender (transfer kind self): how a wallet merges or splits its
// holdings, e.g. the wallet SDK's mergeHoldingUtxos.
type SelfTransferRequest struct {
	Owner  coin.PartyID
	Amount coin.Amount
	// Inputs are the holdings to spend (the transfer's inputHoldingCids);
	// none means the owner's unlocked holdings, up to MaxNumInputs.
	Inputs        []coin.ContractID
	Description   string
	ExecuteBefore time.Time
	// TrackingID makes the request idempotent, as for
	// Instructions().Create.
	TrackingID string
	// Completion is the Ledger API's completion of the command the
	// request runs for (Completing; TrackingID is its key), written with
	// its success; nil elsewhere.
	Completion *Completion
}

// CheckSelfTransfer is SelfTransfer's rule without the change: the
// refusal SelfTransfer would give now, or nil. Interactive submission
// calls it at prepare, so a refusal comes before anything is signed.
func (l *Ledger) CheckSelfTransfer(ctx context.Context, req SelfTransferRequest) error {
	_, _, err := l.selfTransferPlan(ctx, l.db, req, l.now())
	return err
}

// selfTransferPlan checks req and picks its inputs (worth sum) at time
// now.
func (l *Ledger) selfTransferPlan(ctx context.Context, db bun.IDB, req SelfTransferRequest, now time.Time) ([]store.Holding, coin.Amount, error) {
	if err := checkAmount("amount", req.Amount); err != nil {
		return nil, coin.Zero, err
	}
	if err := checkExpiry("executeBefore", req.ExecuteBefore, now); err != nil {
		return nil, coin.Zero, err
	}
	if err := checkText("description", req.Description); err != nil {
		return nil, coin.Zero, err
	}
	if err := checkID("tracking_id", req.TrackingID); err != nil {
		return nil, coin.Zero, err
	}
	if len(req.Inputs) > l.rules.MaxNumInputs {
		return nil, coin.Zero, invalid("inputHoldingCids", "at most %d inputs a transfer, got %d", l.rules.MaxNumInputs, len(req.Inputs))
	}
	r, err := store.LatestRound(ctx, db)
	if err != nil {
		return nil, coin.Zero, err
	}
	var hs []store.Holding
	if len(req.Inputs) == 0 {
		hs, err = store.HoldingsByOwner(ctx, db, req.Owner)
	} else {
		hs, err = store.HoldingsByIDs(ctx, db, req.Inputs)
	}
	if err != nil {
		return nil, coin.Zero, err
	}
	if len(req.Inputs) > 0 && len(hs) != len(req.Inputs) {
		return nil, coin.Zero, fmt.Errorf("%w: an input holding is not active (spent or never existed)", ErrRequirement)
	}
	var picked []store.Holding
	sum, initial := coin.Zero, coin.Zero
	for _, h := range hs {
		if h.Owner != req.Owner || h.LockHolder != "" {
			if len(req.Inputs) == 0 {
				continue
			}
			return nil, coin.Zero, fmt.Errorf("%w: input %s is not an unlocked holding of %s", ErrRequirement, h.ContractID, req.Owner)
		}
		if len(picked) == l.rules.MaxNumInputs {
			break
		}
		picked = append(picked, h)
		sum = sum.Add(EffectiveAmount(h.Amount, h.Rate, h.CreatedRound, r.Number))
		initial = initial.Add(h.Amount)
	}
	// A self-transfer pays no transfer fee; what the inputs are worth
	// after their holding fees is what it can move. Asking for their
	// initial amounts (the Holding views' amounts, as the SDK's merge
	// sums them) moves all of it.
	if len(picked) == 0 || req.Amount.Cmp(initial) > 0 {
		return nil, coin.Zero, fmt.Errorf("%w: the inputs hold %s (worth %s after holding fees), less than %s", ErrInsufficientFunds, initial, sum, req.Amount)
	}
	return picked, sum, nil
}

// SelfTransfer runs a self-transfer: it spends the inputs and gives the
// owner one holding of the amount (all the inputs are worth when the
// amount is between that and their initial amounts) and the change, in
// one update, with no transfer fee; the inputs' holding fees are charged.
func (l *Ledger) SelfTransfer(ctx context.Context, req SelfTransferRequest) (*InstructionResult, error) {
	if err := l.Users().KnownParty(ctx, req.Owner); err != nil {
		return nil, err
	}
	var cmd Command // none without a tracking id
	if req.TrackingID != "" {
		cmd = Command{Key: "token-transfer:" + string(req.Owner) + ":" + req.TrackingID, Completion: req.Completion}
	}
	var res *InstructionResult
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		if cmd.Key != "" {
			prev, err := l.claimCommand(ctx, c.tx, cmd.Key)
			if err != nil {
				return err
			}
			if prev != nil {
				return fmt.Errorf("%w: tracking id %q was already used for transfer %s", ErrDuplicate, req.TrackingID, prev.Result)
			}
		}
		if err := l.lockParties(ctx, c.tx, req.Owner); err != nil {
			return err
		}
		hs, _, err := l.selfTransferPlan(ctx, c.tx, req, l.now())
		if err != nil {
			return err
		}
		t, err := c.begin(ctx, "self-transfer")
		if err != nil {
			return err
		}
		byID := make(map[coin.ContractID]store.Holding, len(hs))
		picked := make([]Candidate, len(hs))
		sum := coin.Zero
		for i, h := range hs {
			byID[h.ContractID] = h
			picked[i] = Candidate{ID: h.ContractID, Effective: EffectiveAmount(h.Amount, h.Rate, h.CreatedRound, t.round.Number)}
			sum = sum.Add(picked[i].Effective)
		}
		amount := coin.Min(req.Amount, sum)
		var outs []Output
		if amount.IsPositive() {
			outs = []Output{{Receiver: req.Owner, Amount: amount}}
		}
		tr, err := t.spend(ctx, req.Owner, picked, byID, sum, amount, coin.Zero, outs)
		if err != nil {
			return err
		}
		res = &InstructionResult{Status: InstructionCompleted, ReceiverHoldingCIDs: []coin.ContractID{}, SenderChangeCIDs: []coin.ContractID{}, Meta: map[string]string{}}
		res.ReceiverHoldingCIDs = append(res.ReceiverHoldingCIDs, tr.Outputs...)
		if tr.Change != "" {
			res.SenderChangeCIDs = append(res.SenderChangeCIDs, tr.Change)
		}
		t.record(req.Owner, HistoryTransfer, "SelfTransfer", req.Owner, tr.HoldingFees.Neg(), tr.HoldingFees,
			fmt.Sprintf("self-transfer of %d holdings", len(tr.Inputs)), HistoryDetails{Provider: l.operator, HoldingFees: tr.HoldingFees, TrackingID: req.TrackingID})
		if cmd.Key != "" {
			made := ""
			if len(tr.Outputs) > 0 {
				made = string(tr.Outputs[0])
			}
			t.afterCommit(func(ctx context.Context) error {
				return l.saveCommand(ctx, t, cmd, req.Owner, "self-transfer", made)
			})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("self-transfer of %s: %w", req.Owner, err)
	}
	return res, nil
}
