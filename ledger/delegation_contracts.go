package ledger

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// What the core keeps of the delegations (the workflows, their templates,
// payloads and states are in ledger/delegations): how far a merge goes
// (MergeTarget) and the one merge of a party's holdings (mergeInputs),
// which the merge automation, merges by delegation and the airdrop run
// inside their updates.

// MergeTarget is how many holdings a merge leaves at most (the mission's
// "roughly 10 or fewer"); a party with more is merged.
const MergeTarget = 10

// MergeHistorySubtype names a merge in history, after the batch choice.
const MergeHistorySubtype = "BatchMergeUtility_MergeHoldings"

// MergeGoal is how far (Target holdings), and on whose authority (the
// history Subtype; Featured: a MergeDelegation merge, which earns the
// provider an app reward), a merge merges one party's holdings.
type MergeGoal struct {
	Target   int
	Subtype  string
	Featured bool
}

// MergeInputs is one merge inside the update (mergeInputs): owner's
// self-transfer of those of ids still its live, unlocked holdings into
// one. It returns the merged holding and how many inputs it used (0, and
// nothing done, when fewer than two are left). The caller holds owner's
// lock.
func (x *Tx) MergeInputs(ctx context.Context, owner coin.PartyID, ids []coin.ContractID, g MergeGoal) (*store.Holding, int, error) {
	return x.t().mergeInputs(ctx, owner, ids, g)
}

// mergeInputs is one merge inside t, the owner's self-transfer of those of
// ids that are still owner's live, unlocked holdings into one holding
// (none when they are all worth nothing), with its history row and, for a
// delegated merge, the provider's featured app reward. It returns the
// merged holding and how many inputs it used (0, and nothing done, when
// fewer than two are left). The caller holds owner's lock.
func (t *txn) mergeInputs(ctx context.Context, owner coin.PartyID, ids []coin.ContractID, g MergeGoal) (*store.Holding, int, error) {
	l := t.l
	hs, err := store.HoldingsByIDs(ctx, t.tx, ids)
	if err != nil {
		return nil, 0, err
	}
	byID := make(map[coin.ContractID]store.Holding, len(hs))
	total := coin.Zero
	for _, h := range hs {
		// One holding holds at most coin.MaxAmount: a holding that would
		// take the merged one past it stays apart.
		if h.LockHolder == "" && h.Owner == owner && total.Add(h.Amount).Fits() {
			byID[h.ContractID] = h
			total = total.Add(h.Amount)
		}
	}
	if len(byID) < 2 {
		return nil, 0, nil
	}
	picked := make([]Candidate, 0, len(byID))
	sum := coin.Zero
	for _, id := range ids {
		h, ok := byID[id]
		if !ok {
			continue
		}
		eff := EffectiveAmount(h.Amount, h.Rate, h.CreatedRound, t.round.Number)
		picked = append(picked, Candidate{ID: id, Effective: eff})
		sum = sum.Add(eff)
	}
	var outs []Output
	if sum.IsPositive() {
		outs = []Output{{Receiver: owner, Amount: sum}}
	}
	res, err := t.spend(ctx, owner, picked, byID, sum, sum, coin.Zero, outs)
	if err != nil {
		return nil, 0, err
	}
	d := HistoryDetails{Provider: l.operator, HoldingFees: res.HoldingFees}
	var out *store.Holding
	if len(res.Outputs) > 0 {
		d.ContractID = res.Outputs[0]
		h := t.holdings[len(t.holdings)-1]
		out = &h
	}
	// The inputs' holding fees are charged now.
	t.record(owner, HistoryTransfer, g.Subtype, l.operator, res.HoldingFees.Neg(), res.HoldingFees,
		fmt.Sprintf("merged %d holdings", len(res.Inputs)), d)
	if g.Featured {
		// The provider earns a featured app reward for each delegated
		// merge while it holds its FeaturedAppRight (created at bootstrap;
		// its admin may cancel it), as MergeDelegation_Merge's
		// optFeaturedAppRight.
		live, err := IsFeatured(ctx, t.tx, l.operator)
		if err != nil {
			return nil, 0, err
		}
		reward := USDToCoin(l.rules.ExtraFeaturedAppRewardUSD, t.round.Price)
		if live && reward.IsPositive() {
			t.addRewardCoupon(RewardApp, l.operator, reward, true)
		}
	}
	return out, len(res.Inputs), nil
}
