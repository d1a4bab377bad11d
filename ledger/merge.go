package ledger

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// Merge delegation templates, as in the newer upstream package
// splice-util-token-standard-wallet.
const (
	TemplateMergeDelegation         = "#splice-util-token-standard-wallet:Splice.Util.Token.Wallet.MergeDelegation:MergeDelegation"
	TemplateMergeDelegationProposal = "#splice-util-token-standard-wallet:Splice.Util.Token.Wallet.MergeDelegation:MergeDelegationProposal"
)

// Merge delegation states.
const (
	MergeProposed  = "proposed"
	MergeActive    = "active"
	MergeAccepted  = "accepted" // a proposal that became a delegation
	MergeWithdrawn = "withdrawn"
)

// MergeTarget is how many holdings a merge leaves at most (the mission's
// "roughly 10 or fewer"); a party with more is merged.
const MergeTarget = 10

// MergeHistorySubtype names a merge in history, after the batch choice.
const MergeHistorySubtype = "BatchMergeUtility_MergeHoldings"

type mergeDelegationPayload struct {
	Operator coin.PartyID `json:"operator"`
	Owner    coin.PartyID `json:"owner"`
	Meta     metaValues   `json:"meta"`
}

type metaValues struct {
	Values map[string]string `json:"values"`
}

type mergeProposalPayload struct {
	Delegation mergeDelegationPayload `json:"delegation"`
}

// MergeDelegation is a proposal or an active delegation with its contract.
type MergeDelegation struct {
	Contract Contract
	Owner    coin.PartyID
	Operator coin.PartyID
	Status   string
}

// ProposeMergeDelegation creates owner's MergeDelegationProposal naming the
// wallet provider (the operator), as the user signs at onboarding. An open
// proposal is returned again; an active delegation is ErrConflict.
func (l *Ledger) ProposeMergeDelegation(ctx context.Context, owner coin.PartyID) (MergeDelegation, error) {
	return l.proposeMergeDelegation(ctx, owner, "")
}

// proposeMergeDelegation is ProposeMergeDelegation's rule; a non-empty key
// deduplicates the command, which must create a proposal: an open one
// fails its requirement.
func (l *Ledger) proposeMergeDelegation(ctx context.Context, owner coin.PartyID, key string) (MergeDelegation, error) {
	if err := l.KnownParty(ctx, owner); err != nil {
		return MergeDelegation{}, err
	}
	var cid coin.ContractID
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		if err := l.claimOnce(ctx, c.tx, key); err != nil {
			return err
		}
		if err := l.lockParties(ctx, c.tx, owner); err != nil {
			return err
		}
		existing, err := store.MergeDelegationsOf(ctx, c.tx, owner, "")
		if err != nil {
			return err
		}
		for _, m := range existing {
			switch m.Status {
			case MergeActive:
				return fmt.Errorf("%w: %s already has an active merge delegation %s", ErrConflict, owner, m.ContractID)
			case MergeProposed:
				if key != "" {
					return fmt.Errorf("%w: %s has an open merge delegation proposal %s already", ErrRequirement, owner, m.ContractID)
				}
				cid = m.ContractID
				return nil
			}
		}
		t, err := c.begin(ctx, "merge-delegation-proposal")
		if err != nil {
			return err
		}
		cid = t.create(TemplateMergeDelegationProposal, mergeProposalPayload{Delegation: mergeDelegationPayload{
			Operator: l.operator, Owner: owner, Meta: metaValues{Values: map[string]string{}},
		}}, owner, l.operator)
		t.afterCommit(func(ctx context.Context) error {
			if err := store.InsertMergeDelegation(ctx, t.tx, &store.MergeDelegation{
				ContractID: cid, Owner: owner, Operator: l.operator, Status: MergeProposed, ProposalCID: cid, CreatedAt: t.now, UpdatedAt: t.now,
			}); err != nil || key == "" {
				return err
			}
			return l.saveCommand(ctx, t, key, owner, "merge-delegation-proposal", string(cid))
		})
		return nil
	})
	if err != nil {
		return MergeDelegation{}, fmt.Errorf("propose merge delegation for %s: %w", owner, err)
	}
	return l.mergeDelegation(ctx, cid)
}

// onboardMergeProposal adds owner's merge delegation proposal to the
// onboarding transaction t, when configured and owner has none open.
func (l *Ledger) onboardMergeProposal(ctx context.Context, t *txn, owner coin.PartyID) error {
	if !l.cfg.MergeDelegationAtOnboarding || owner == l.operator {
		return nil
	}
	existing, err := store.MergeDelegationsOf(ctx, t.tx, owner, "")
	if err != nil {
		return err
	}
	for _, m := range existing {
		if m.Status == MergeActive || m.Status == MergeProposed {
			return nil
		}
	}
	cid := t.create(TemplateMergeDelegationProposal, mergeProposalPayload{Delegation: mergeDelegationPayload{
		Operator: l.operator, Owner: owner, Meta: metaValues{Values: map[string]string{}},
	}}, owner, l.operator)
	return store.InsertMergeDelegation(ctx, t.tx, &store.MergeDelegation{
		ContractID: cid, Owner: owner, Operator: l.operator, Status: MergeProposed, ProposalCID: cid, CreatedAt: t.now, UpdatedAt: t.now,
	})
}

// AcceptMergeDelegation is the wallet provider accepting a proposal: the
// proposal is archived and an active MergeDelegation created.
func (l *Ledger) AcceptMergeDelegation(ctx context.Context, proposal coin.ContractID) (MergeDelegation, error) {
	return l.acceptMergeDelegation(ctx, "", proposal, "")
}

// acceptMergeDelegation is AcceptMergeDelegation's rule; a non-empty
// actor must be the proposal's operator, and a non-empty key deduplicates
// the command.
func (l *Ledger) acceptMergeDelegation(ctx context.Context, actor coin.PartyID, proposal coin.ContractID, key string) (MergeDelegation, error) {
	var cid coin.ContractID
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		if err := l.claimOnce(ctx, c.tx, key); err != nil {
			return err
		}
		m, err := store.MergeDelegationByID(ctx, c.tx, proposal)
		if err != nil {
			return err
		}
		if m.Status != MergeProposed {
			return fmt.Errorf("%w: merge delegation proposal %s is %s", ErrConflict, proposal, m.Status)
		}
		if actor != "" && actor != m.Operator {
			return fmt.Errorf("%w: only the operator %s accepts merge delegation proposal %s, not %s", ErrForbidden, m.Operator, proposal, actor)
		}
		if err := l.lockParties(ctx, c.tx, m.Owner); err != nil {
			return err
		}
		t, err := c.begin(ctx, "merge-delegation-accept")
		if err != nil {
			return err
		}
		if err := store.SetMergeDelegationStatus(ctx, c.tx, proposal, MergeProposed, MergeAccepted, t.now); err != nil {
			return err
		}
		t.archive(proposal)
		cid = t.create(TemplateMergeDelegation, mergeDelegationPayload{Operator: m.Operator, Owner: m.Owner, Meta: metaValues{Values: map[string]string{}}}, m.Owner, m.Operator)
		t.record(m.Owner, "notification", "MergeDelegationAccepted", m.Operator, coin.Zero, coin.Zero, "", HistoryDetails{ContractID: cid, Notification: "merge delegation accepted by the wallet provider"})
		t.afterCommit(func(ctx context.Context) error {
			if err := store.InsertMergeDelegation(ctx, t.tx, &store.MergeDelegation{
				ContractID: cid, Owner: m.Owner, Operator: m.Operator, Status: MergeActive, ProposalCID: proposal, CreatedAt: t.now, UpdatedAt: t.now,
			}); err != nil || key == "" {
				return err
			}
			return l.saveCommand(ctx, t, key, m.Operator, "merge-delegation-accept", string(cid))
		})
		return nil
	})
	if err != nil {
		return MergeDelegation{}, fmt.Errorf("accept merge delegation proposal %s: %w", proposal, err)
	}
	return l.mergeDelegation(ctx, cid)
}

// AcceptMergeDelegations accepts every open proposal, as the provider's
// automation does; it returns how many it accepted.
func (l *Ledger) AcceptMergeDelegations(ctx context.Context) (int, error) {
	ms, err := store.MergeDelegationsOf(ctx, l.db, "", MergeProposed)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, m := range ms {
		if _, err := l.AcceptMergeDelegation(ctx, m.ContractID); err != nil {
			if errors.Is(err, ErrConflict) || errors.Is(err, store.ErrStale) {
				continue // accepted or withdrawn meanwhile
			}
			return n, err
		}
		n++
	}
	return n, nil
}

// WithdrawMergeDelegation lets the owner end a proposal or an active
// delegation; another party's is ErrNotFound, as it must not be revealed.
func (l *Ledger) WithdrawMergeDelegation(ctx context.Context, owner coin.PartyID, id coin.ContractID) error {
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		m, err := store.MergeDelegationByID(ctx, c.tx, id)
		if err != nil {
			return err
		}
		if m.Owner != owner {
			return fmt.Errorf("merge delegation %s: %w", id, ErrNotFound)
		}
		if m.Status != MergeActive && m.Status != MergeProposed {
			return problem(ErrConflict, "this merge delegation is %s already; reload the page", m.Status)
		}
		t, err := c.begin(ctx, "merge-delegation-withdraw")
		if err != nil {
			return err
		}
		if err := store.SetMergeDelegationStatus(ctx, c.tx, id, m.Status, MergeWithdrawn, t.now); err != nil {
			return err
		}
		t.archive(id)
		return nil
	})
	if err != nil {
		return fmt.Errorf("withdraw merge delegation %s: %w", id, err)
	}
	return nil
}

// MergeDelegations lists owner's open proposals and active delegations.
func (l *Ledger) MergeDelegations(ctx context.Context, owner coin.PartyID) ([]MergeDelegation, error) {
	ms, err := store.MergeDelegationsOf(ctx, l.db, owner, "")
	if err != nil {
		return nil, err
	}
	out := []MergeDelegation{}
	for _, m := range ms {
		if m.Status != MergeActive && m.Status != MergeProposed {
			continue
		}
		d, err := l.mergeDelegation(ctx, m.ContractID)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func (l *Ledger) mergeDelegation(ctx context.Context, id coin.ContractID) (MergeDelegation, error) {
	m, err := store.MergeDelegationByID(ctx, l.db, id)
	if err != nil {
		return MergeDelegation{}, err
	}
	c, err := store.ContractByID(ctx, l.db, id)
	if err != nil {
		return MergeDelegation{}, err
	}
	return MergeDelegation{Contract: l.contractView(c), Owner: m.Owner, Operator: m.Operator, Status: m.Status}, nil
}

// PendingMerge is a party the merge automation still has to work on.
type PendingMerge struct {
	Party    coin.PartyID
	Holdings int
	// Target is how many holdings the automation leaves the party.
	Target int
}

// Merge history subtypes besides MergeHistorySubtype, after what each
// merge stands for.
const (
	// WalletMergeHistorySubtype is the wallet's own merge of a party it
	// runs, as the real wallet's reward collection merges its inputs
	// (CO_MergeTransferInputs).
	WalletMergeHistorySubtype = "MergeTransferInputs"
	// MintingMergeHistorySubtype is a merge under a minting delegation.
	MintingMergeHistorySubtype = "MintingDelegation_MergeAmulets"
)

// mergeGoal is how far, and on whose authority, the merge automation
// merges one party's holdings.
type mergeGoal struct {
	target   int
	subtype  string
	featured bool // a MergeDelegation merge earns the provider an app reward
}

// mergeGoalOf is the one rule of whose holdings the wallet merges, and how
// far: a party with an active merge delegation to MergeTarget (a featured
// merge); the operator and every onboarded user's party, whose wallets the
// validator runs, to MergeTarget; an external party with an active,
// unexpired minting delegation to the operator down to the delegation's
// merge limit (the smaller target wins when several apply). ok is false
// for anyone else: an external party without a delegation signs its own
// transactions, and an offboarded user's wallet no longer runs.
func (l *Ledger) mergeGoalOf(ctx context.Context, db bun.IDB, owner coin.PartyID) (g mergeGoal, ok bool, err error) {
	active, err := store.MergeDelegationsOf(ctx, db, owner, MergeActive)
	if err != nil {
		return g, false, err
	}
	switch {
	case len(active) > 0:
		g, ok = mergeGoal{target: MergeTarget, subtype: MergeHistorySubtype, featured: true}, true
	case owner == l.operator:
		g, ok = mergeGoal{target: MergeTarget, subtype: WalletMergeHistorySubtype}, true
	default:
		on, err := store.PartyOnboarded(ctx, db, owner)
		if err != nil {
			return g, false, err
		}
		if on {
			g, ok = mergeGoal{target: MergeTarget, subtype: WalletMergeHistorySubtype}, true
		}
	}
	now := l.now()
	ds, err := l.delegations(ctx, db, TemplateMintingDelegation, owner, func(d MintingDelegation) bool {
		return d.Beneficiary == owner && d.Delegate == l.operator && d.ExpiresAt.After(now)
	})
	if err != nil {
		return g, false, err
	}
	for _, d := range ds {
		limit := max(d.MergeLimit, 1) // validated at proposal; never merge to nothing
		if !ok {
			g, ok = mergeGoal{target: limit, subtype: MintingMergeHistorySubtype}, true
		}
		g.target = min(g.target, limit)
	}
	return g, ok, nil
}

// PendingMerges lists the parties with more unlocked holdings than their
// merge target (mergeGoalOf), most first: the merge automation's progress.
func (l *Ledger) PendingMerges(ctx context.Context) ([]PendingMerge, error) {
	rows, err := store.MergeCandidatesAbove(ctx, l.db, MergeTarget, l.operator)
	if err != nil {
		return nil, err
	}
	counts := make(map[coin.PartyID]int, len(rows))
	order := make([]coin.PartyID, 0, len(rows))
	for _, r := range rows {
		counts[r.Owner] = r.Count
		order = append(order, r.Owner)
	}
	// Minting delegations can merge below MergeTarget; there are few of
	// them, so their beneficiaries are counted one by one.
	ds, err := l.ActiveMintingDelegations(ctx)
	if err != nil {
		return nil, err
	}
	for _, d := range ds {
		if _, seen := counts[d.Beneficiary]; seen || d.Delegate != l.operator {
			continue
		}
		n, err := store.CountUnlockedHoldings(ctx, l.db, d.Beneficiary)
		if err != nil {
			return nil, err
		}
		if n > d.MergeLimit {
			counts[d.Beneficiary] = n
			order = append(order, d.Beneficiary)
		}
	}
	out := []PendingMerge{}
	for _, p := range order {
		g, ok, err := l.mergeGoalOf(ctx, l.db, p)
		if err != nil {
			return nil, err
		}
		if ok && counts[p] > g.target {
			out = append(out, PendingMerge{Party: p, Holdings: counts[p], Target: g.target})
		}
	}
	slices.SortStableFunc(out, func(a, b PendingMerge) int { return b.Holdings - a.Holdings })
	return out, nil
}

// MergeReport says what a merge run did.
type MergeReport struct {
	Parties int
	Merges  int
	Inputs  int
}

// MergeHoldings is the merge automation: the provider first accepts open
// proposals, then every pending party (PendingMerges) is merged by
// self-transfers of at most MaxNumInputs inputs each (the
// BatchMergeUtility_MergeHoldings step) down to its target. A featured
// provider earns an app reward per delegated merge.
func (l *Ledger) MergeHoldings(ctx context.Context) (MergeReport, error) {
	var rep MergeReport
	if _, err := l.AcceptMergeDelegations(ctx); err != nil {
		return rep, err
	}
	pending, err := l.PendingMerges(ctx)
	if err != nil {
		return rep, err
	}
	for _, p := range pending {
		rep.Parties++
		if err := l.mergeParty(ctx, p.Party, p.Target, &rep); err != nil {
			return rep, fmt.Errorf("merge holdings of %s: %w", p.Party, err)
		}
	}
	return rep, nil
}

// mergeParty merges one owner's holdings down to target. It reads the
// owner's unlocked holdings once and merges them in batches, each its own
// transaction; a batch that lost holdings to a concurrent spend is
// re-read, so the plan is only ever an optimisation.
func (l *Ledger) mergeParty(ctx context.Context, owner coin.PartyID, target int, rep *MergeReport) error {
	for reload := 0; reload < 3; reload++ {
		hs, err := store.UnlockedHoldingsOf(ctx, l.db, owner, 0)
		if err != nil {
			return err
		}
		for len(hs) > target {
			// Just enough inputs to land on target, at most MaxNumInputs.
			take := min(l.rules.MaxNumInputs, len(hs)-target+1)
			out, used, err := l.mergeBatch(ctx, owner, hs[:take])
			if err != nil {
				return err
			}
			if used == 0 {
				break // no longer ours to merge, or the plan went stale: stop or re-read
			}
			if used < take {
				hs = nil // the owner spent some meanwhile: re-read
				break
			}
			rep.Merges++
			rep.Inputs += used
			hs = hs[take:]
			if out != nil {
				hs = append(hs, *out)
			}
		}
		if hs != nil {
			return nil
		}
	}
	return nil
}

// mergeBatch merges the given holdings of owner into one, in one
// transaction, if the wallet still merges owner's holdings (mergeGoalOf).
// Holdings gone meanwhile are left out; used is how many inputs were
// merged (0: nothing done).
func (l *Ledger) mergeBatch(ctx context.Context, owner coin.PartyID, batch []store.Holding) (*store.Holding, int, error) {
	var out *store.Holding
	used := 0
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		out, used = nil, 0
		if err := l.lockParties(ctx, c.tx, owner); err != nil {
			return err
		}
		g, ok, err := l.mergeGoalOf(ctx, c.tx, owner)
		if err != nil || !ok {
			return err // withdrawn, expired or offboarded meanwhile: stop
		}
		ids := make([]coin.ContractID, len(batch))
		for i, h := range batch {
			ids[i] = h.ContractID
		}
		t, err := c.begin(ctx, "merge-holdings")
		if err != nil {
			return err
		}
		out, used, err = t.mergeInputs(ctx, owner, ids, g)
		if err == nil && used == 0 {
			c.drop() // fewer than two inputs left: nothing merged
		}
		return err
	})
	return out, used, err
}

// mergeInputs is one merge inside t, the owner's self-transfer of those of
// ids that are still owner's live, unlocked holdings into one holding
// (none when they are all worth nothing), with its history row and, for a
// delegated merge, the provider's featured app reward. It returns the
// merged holding and how many inputs it used (0, and nothing done, when
// fewer than two are left). The caller holds owner's lock.
func (t *txn) mergeInputs(ctx context.Context, owner coin.PartyID, ids []coin.ContractID, g mergeGoal) (*store.Holding, int, error) {
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
	t.record(owner, "transfer", g.subtype, l.operator, res.HoldingFees.Neg(), res.HoldingFees,
		fmt.Sprintf("merged %d holdings", len(res.Inputs)), d)
	if g.featured {
		// The provider earns a featured app reward for each delegated
		// merge while it holds its FeaturedAppRight (created at bootstrap;
		// its admin may cancel it), as MergeDelegation_Merge's
		// optFeaturedAppRight.
		live, err := isFeatured(ctx, t.tx, l.operator)
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

// MintBulk issues one holding per amount to party in a single ledger
// transaction: seeding for demos, benchmarks and tests that need many
// holdings quickly. Recorded as minted, so conservation holds.
func (d Dev) MintBulk(ctx context.Context, party coin.PartyID, amounts []coin.Amount) error {
	l := d.l
	if err := l.KnownParty(ctx, party); err != nil {
		return err
	}
	total := coin.Zero
	for _, a := range amounts {
		if !a.IsPositive() {
			return invalid("amount", "must be positive")
		}
		total = total.Add(a)
	}
	return l.change(ctx, func(ctx context.Context, c *change) error {
		t, err := c.begin(ctx, "mint")
		if err != nil {
			return err
		}
		for _, a := range amounts {
			t.mint(party, a)
		}
		t.record(party, "balance_change", "Mint", "", total, coin.Zero, fmt.Sprintf("%d holdings", len(amounts)), HistoryDetails{})
		return nil
	})
}
