package delegations

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// Merge history subtypes besides the core's ledger.MergeHistorySubtype
// (a merge under a MergeDelegation), after what each merge stands for.
const (
	// WalletMergeHistorySubtype is the wallet's own merge of a party it
	// runs, as the real wallet's reward collection merges its inputs
	// (CO_MergeTransferInputs).
	WalletMergeHistorySubtype = "MergeTransferInputs"
	// MintingMergeHistorySubtype is a merge under a minting delegation.
	MintingMergeHistorySubtype = "MintingDelegation_MergeAmulets"
)

// MergeDelegation is a proposal or an active delegation with its contract.
type MergeDelegation struct {
	Contract ledger.Contract
	Owner    coin.PartyID
	Operator coin.PartyID
	Status   string
}

// ProposeMergeDelegation creates owner's MergeDelegationProposal naming the
// wallet provider (the operator), as the user signs at onboarding. An open
// proposal is returned again; an active delegation is ErrConflict.
func (s *Service) ProposeMergeDelegation(ctx context.Context, owner coin.PartyID) (MergeDelegation, error) {
	return s.proposeMergeDelegation(ctx, owner, commands.Command{})
}

// proposeMergeDelegation is ProposeMergeDelegation's rule; a command with a key
// deduplicates the command, which must create a proposal: an open one
// fails its requirement.
func (s *Service) proposeMergeDelegation(ctx context.Context, owner coin.PartyID, cmd commands.Command) (MergeDelegation, error) {
	l := s.l
	if err := l.KnownParty(ctx, owner); err != nil {
		return MergeDelegation{}, err
	}
	var cid coin.ContractID
	err := l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		if err := x.ClaimOnce(ctx, cmd.Key); err != nil {
			return err
		}
		if err := x.LockParties(ctx, owner); err != nil {
			return err
		}
		existing, err := store.MergeDelegationsOf(ctx, x.DB(), owner, "")
		if err != nil {
			return err
		}
		for _, m := range existing {
			switch m.Status {
			case MergeActive:
				return fmt.Errorf("%w: %s already has an active merge delegation %s", fault.ErrConflict, owner, m.ContractID)
			case MergeProposed:
				if cmd.Key != "" {
					return fmt.Errorf("%w: %s has an open merge delegation proposal %s already", fault.ErrRequirement, owner, m.ContractID)
				}
				cid = m.ContractID
				return nil
			}
		}
		if err := x.Begin(ctx, "merge-delegation-proposal"); err != nil {
			return err
		}
		cid = x.Create(TemplateMergeDelegationProposal, MergeProposalPayload(l.Operator(), owner), owner, l.Operator())
		now := x.Now()
		x.AfterCommit(func(ctx context.Context) error {
			return store.InsertMergeDelegation(ctx, x.DB(), &store.MergeDelegation{
				ContractID: cid, Owner: owner, Operator: l.Operator(), Status: MergeProposed, ProposalCID: cid, CreatedAt: now, UpdatedAt: now,
			})
		})
		if cmd.Key != "" {
			x.SaveCommand(cmd, owner, "merge-delegation-proposal", string(cid))
		}
		return nil
	})
	if err != nil {
		return MergeDelegation{}, fmt.Errorf("propose merge delegation for %s: %w", owner, err)
	}
	return s.mergeDelegation(ctx, cid)
}

// AcceptMergeDelegation is the wallet provider accepting a proposal: the
// proposal is archived and an active MergeDelegation created.
func (s *Service) AcceptMergeDelegation(ctx context.Context, proposal coin.ContractID) (MergeDelegation, error) {
	return s.acceptMergeDelegation(ctx, "", proposal, commands.Command{})
}

// acceptMergeDelegation is AcceptMergeDelegation's rule; a non-empty
// actor must be the proposal's operator, and a command with a key deduplicates
// the command.
func (s *Service) acceptMergeDelegation(ctx context.Context, actor coin.PartyID, proposal coin.ContractID, cmd commands.Command) (MergeDelegation, error) {
	var cid coin.ContractID
	err := s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		if err := x.ClaimOnce(ctx, cmd.Key); err != nil {
			return err
		}
		m, err := store.MergeDelegationByID(ctx, x.DB(), proposal)
		if err != nil {
			return err
		}
		if m.Status != MergeProposed {
			return fmt.Errorf("%w: merge delegation proposal %s is %s", fault.ErrConflict, proposal, m.Status)
		}
		if actor != "" && actor != m.Operator {
			return fmt.Errorf("%w: only the operator %s accepts merge delegation proposal %s, not %s", fault.ErrForbidden, m.Operator, proposal, actor)
		}
		if err := x.LockParties(ctx, m.Owner); err != nil {
			return err
		}
		if err := x.Begin(ctx, "merge-delegation-accept"); err != nil {
			return err
		}
		now := x.Now()
		if err := store.SetMergeDelegationStatus(ctx, x.DB(), proposal, MergeProposed, MergeAccepted, now); err != nil {
			return err
		}
		x.Archive(proposal)
		cid = x.Create(TemplateMergeDelegation, MergeDelegationPayload(m.Operator, m.Owner), m.Owner, m.Operator)
		x.Record(m.Owner, ledger.HistoryNotification, "MergeDelegationAccepted", m.Operator, coin.Zero, coin.Zero, "", ledger.HistoryDetails{ContractID: cid, Notification: "merge delegation accepted by the wallet provider"})
		x.AfterCommit(func(ctx context.Context) error {
			return store.InsertMergeDelegation(ctx, x.DB(), &store.MergeDelegation{
				ContractID: cid, Owner: m.Owner, Operator: m.Operator, Status: MergeActive, ProposalCID: proposal, CreatedAt: now, UpdatedAt: now,
			})
		})
		if cmd.Key != "" {
			x.SaveCommand(cmd, m.Operator, "merge-delegation-accept", string(cid))
		}
		return nil
	})
	if err != nil {
		return MergeDelegation{}, fmt.Errorf("accept merge delegation proposal %s: %w", proposal, err)
	}
	return s.mergeDelegation(ctx, cid)
}

// AcceptMergeDelegations accepts every open proposal, as the provider's
// automation does; it returns how many it accepted.
func (s *Service) AcceptMergeDelegations(ctx context.Context) (int, error) {
	ms, err := store.MergeDelegationsOf(ctx, s.l.DB(), "", MergeProposed)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, m := range ms {
		if _, err := s.AcceptMergeDelegation(ctx, m.ContractID); err != nil {
			if errors.Is(err, fault.ErrConflict) || errors.Is(err, store.ErrStale) {
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
func (s *Service) WithdrawMergeDelegation(ctx context.Context, owner coin.PartyID, id coin.ContractID) error {
	err := s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		m, err := store.MergeDelegationByID(ctx, x.DB(), id)
		if err != nil {
			return err
		}
		if m.Owner != owner {
			return fmt.Errorf("merge delegation %s: %w", id, fault.ErrNotFound)
		}
		if m.Status != MergeActive && m.Status != MergeProposed {
			return problem(fault.ErrConflict, "this merge delegation is %s already; reload the page", m.Status)
		}
		if err := x.Begin(ctx, "merge-delegation-withdraw"); err != nil {
			return err
		}
		if err := store.SetMergeDelegationStatus(ctx, x.DB(), id, m.Status, MergeWithdrawn, x.Now()); err != nil {
			return err
		}
		x.Archive(id)
		return nil
	})
	if err != nil {
		return fmt.Errorf("withdraw merge delegation %s: %w", id, err)
	}
	return nil
}

// MergeDelegations lists owner's open proposals and active delegations.
func (s *Service) MergeDelegations(ctx context.Context, owner coin.PartyID) ([]MergeDelegation, error) {
	ms, err := store.MergeDelegationsOf(ctx, s.l.DB(), owner, "")
	if err != nil {
		return nil, err
	}
	out := []MergeDelegation{}
	for _, m := range ms {
		if m.Status != MergeActive && m.Status != MergeProposed {
			continue
		}
		d, err := s.mergeDelegation(ctx, m.ContractID)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func (s *Service) mergeDelegation(ctx context.Context, id coin.ContractID) (MergeDelegation, error) {
	m, err := store.MergeDelegationByID(ctx, s.l.DB(), id)
	if err != nil {
		return MergeDelegation{}, err
	}
	c, err := store.ContractByID(ctx, s.l.DB(), id)
	if err != nil {
		return MergeDelegation{}, err
	}
	return MergeDelegation{Contract: s.l.ContractView(c), Owner: m.Owner, Operator: m.Operator, Status: m.Status}, nil
}

// PendingMerge is a party the merge automation still has to work on.
type PendingMerge struct {
	Party    coin.PartyID
	Holdings int
	// Target is how many holdings the automation leaves the party.
	Target int
}

// mergeGoalOf is the one rule of whose holdings the wallet merges, and how
// far: a party with an active merge delegation to MergeTarget (a featured
// merge); the operator and every onboarded user's party, whose wallets the
// validator runs, to MergeTarget; an external party with an active,
// unexpired minting delegation to the operator down to the delegation's
// merge limit (the smaller target wins when several apply). ok is false
// for anyone else: an external party without a delegation signs its own
// transactions, and an offboarded user's wallet no longer runs.
func (s *Service) mergeGoalOf(ctx context.Context, db bun.IDB, owner coin.PartyID) (g ledger.MergeGoal, ok bool, err error) {
	l := s.l
	active, err := store.MergeDelegationsOf(ctx, db, owner, MergeActive)
	if err != nil {
		return g, false, err
	}
	switch {
	case len(active) > 0:
		g, ok = ledger.MergeGoal{Target: ledger.MergeTarget, Subtype: ledger.MergeHistorySubtype, Featured: true}, true
	case owner == l.Operator():
		g, ok = ledger.MergeGoal{Target: ledger.MergeTarget, Subtype: WalletMergeHistorySubtype}, true
	default:
		on, err := store.PartyOnboarded(ctx, db, owner)
		if err != nil {
			return g, false, err
		}
		if on {
			g, ok = ledger.MergeGoal{Target: ledger.MergeTarget, Subtype: WalletMergeHistorySubtype}, true
		}
	}
	now := l.Now()
	ds, err := s.delegations(ctx, db, TemplateMintingDelegation, owner, func(d MintingDelegation) bool {
		return d.Beneficiary == owner && d.Delegate == l.Operator() && d.ExpiresAt.After(now)
	})
	if err != nil {
		return g, false, err
	}
	for _, d := range ds {
		limit := max(d.MergeLimit, 1) // validated at proposal; never merge to nothing
		if !ok {
			g, ok = ledger.MergeGoal{Target: limit, Subtype: MintingMergeHistorySubtype}, true
		}
		g.Target = min(g.Target, limit)
	}
	return g, ok, nil
}

// PendingMerges lists the parties with more unlocked holdings than their
// merge target (mergeGoalOf), most first: the merge automation's progress.
func (s *Service) PendingMerges(ctx context.Context) ([]PendingMerge, error) {
	l := s.l
	rows, err := store.MergeCandidatesAbove(ctx, l.DB(), ledger.MergeTarget, l.Operator())
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
	ds, err := s.ActiveMintingDelegations(ctx)
	if err != nil {
		return nil, err
	}
	for _, d := range ds {
		if _, seen := counts[d.Beneficiary]; seen || d.Delegate != l.Operator() {
			continue
		}
		n, err := store.CountUnlockedHoldings(ctx, l.DB(), d.Beneficiary)
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
		if l.Validators().HostedElsewhere(p) {
			continue // another validator's automation merges it
		}
		g, ok, err := s.mergeGoalOf(ctx, l.DB(), p)
		if err != nil {
			return nil, err
		}
		if ok && counts[p] > g.Target {
			out = append(out, PendingMerge{Party: p, Holdings: counts[p], Target: g.Target})
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
func (s *Service) MergeHoldings(ctx context.Context) (MergeReport, error) {
	var rep MergeReport
	if _, err := s.AcceptMergeDelegations(ctx); err != nil {
		return rep, err
	}
	pending, err := s.PendingMerges(ctx)
	if err != nil {
		return rep, err
	}
	for _, p := range pending {
		rep.Parties++
		if err := s.mergeParty(ctx, p.Party, p.Target, &rep); err != nil {
			return rep, fmt.Errorf("merge holdings of %s: %w", p.Party, err)
		}
	}
	return rep, nil
}

// mergeParty merges one owner's holdings down to target. It reads the
// owner's unlocked holdings once and merges them in batches, each its own
// transaction; a batch that lost holdings to a concurrent spend is
// re-read, so the plan is only ever an optimisation.
func (s *Service) mergeParty(ctx context.Context, owner coin.PartyID, target int, rep *MergeReport) error {
	for reload := 0; reload < 3; reload++ {
		hs, err := store.UnlockedHoldingsOf(ctx, s.l.DB(), owner, 0)
		if err != nil {
			return err
		}
		for len(hs) > target {
			// Just enough inputs to land on target, at most MaxNumInputs.
			take := min(s.l.Rules().MaxNumInputs, len(hs)-target+1)
			out, used, err := s.mergeBatch(ctx, owner, hs[:take])
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
func (s *Service) mergeBatch(ctx context.Context, owner coin.PartyID, batch []store.Holding) (*store.Holding, int, error) {
	var out *store.Holding
	used := 0
	err := s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		out, used = nil, 0
		if err := x.LockParties(ctx, owner); err != nil {
			return err
		}
		g, ok, err := s.mergeGoalOf(ctx, x.DB(), owner)
		if err != nil || !ok {
			return err // withdrawn, expired or offboarded meanwhile: stop
		}
		ids := make([]coin.ContractID, len(batch))
		for i, h := range batch {
			ids[i] = h.ContractID
		}
		if err := x.Begin(ctx, "merge-holdings"); err != nil {
			return err
		}
		out, used, err = x.MergeInputs(ctx, owner, ids, g)
		if err == nil && used == 0 {
			x.Drop() // fewer than two inputs left: nothing merged
		}
		return err
	})
	return out, used, err
}
