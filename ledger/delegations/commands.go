package delegations

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
)

// Merge delegations as an app's code drives them through the Ledger API
// (the wallet SDK's createMergeDelegationProposal,
// approveMergeDelegationProposal, createBatchMergeUtility and
// useMergeDelegations): the owner proposes, the operator accepts, and the
// operator merges the owner's holdings by BatchMergeUtility_BatchMerge,
// each a MergeDelegation_Merge of a self-transfer's inputs, under the
// rules the merge automation runs (ledger.Tx.MergeInputs).

// ProposeMergeDelegationTo is owner's MergeDelegationProposal to operator,
// which must be this validator's operator, once per cmd's key.
func (s *Service) ProposeMergeDelegationTo(ctx context.Context, owner, operator coin.PartyID, cmd commands.Command) (MergeDelegation, error) {
	if operator != s.l.Operator() {
		return MergeDelegation{}, fault.Invalid("operator", "%s is not this validator's operator %s, who merges by delegation", operator, s.l.Operator())
	}
	return s.proposeMergeDelegation(ctx, owner, cmd)
}

// AcceptMergeDelegationAs is MergeDelegationProposal_Accept by actor, the
// proposal's operator, once per cmd's key.
func (s *Service) AcceptMergeDelegationAs(ctx context.Context, actor coin.PartyID, proposal coin.ContractID, cmd commands.Command) (MergeDelegation, error) {
	return s.acceptMergeDelegation(ctx, actor, proposal, cmd)
}

// CreateBatchMergeUtility creates operator's BatchMergeUtility, once per
// key; operator must be this validator's operator.
func (s *Service) CreateBatchMergeUtility(ctx context.Context, operator coin.PartyID, cmd commands.Command) (coin.ContractID, error) {
	if operator != s.l.Operator() {
		return "", fault.Invalid("operator", "%s is not this validator's operator %s, who merges by delegation", operator, s.l.Operator())
	}
	var cid coin.ContractID
	err := s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		if err := x.ClaimOnce(ctx, cmd.Key); err != nil {
			return err
		}
		if err := x.Begin(ctx, "batch-merge-utility"); err != nil {
			return err
		}
		cid = x.Create(TemplateBatchMergeUtility, map[string]coin.PartyID{"operator": operator}, operator)
		if cmd.Key != "" {
			x.SaveCommand(cmd, operator, "batch-merge-utility", string(cid))
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("create batch merge utility: %w", err)
	}
	return cid, nil
}

// DelegatedMerge is one MergeDelegation_Merge: the delegation, and the
// owner's holdings to merge into one.
type DelegatedMerge struct {
	Delegation coin.ContractID
	Inputs     []coin.ContractID
}

// MergeByDelegation merges, for each call, the delegation owner's inputs
// into one holding, all in one transaction, once per cmd's key: operator must be
// each delegation's operator and, when utility is set, own that active
// BatchMergeUtility; each input must be the owner's live, unlocked
// holding. It returns the update's offset.
func (s *Service) MergeByDelegation(ctx context.Context, operator coin.PartyID, utility coin.ContractID, calls []DelegatedMerge, cmd commands.Command) (int64, error) {
	if len(calls) == 0 || len(calls) > allocationdata.MaxTradeLegs {
		return 0, fault.Invalid("mergeCalls", "give 1 to %d merges, not %d", allocationdata.MaxTradeLegs, len(calls))
	}
	var offset int64
	err := s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		if err := x.ClaimOnce(ctx, cmd.Key); err != nil {
			return err
		}
		if utility != "" {
			u, err := store.ContractByID(ctx, x.DB(), utility)
			if errors.Is(err, store.ErrNotFound) || err == nil && (u.TemplateID != TemplateBatchMergeUtility || u.ArchivedOffset != nil) {
				return fmt.Errorf("%w: no active batch merge utility %s", fault.ErrNotFound, utility)
			} else if err != nil {
				return err
			}
			var p struct {
				Operator coin.PartyID `json:"operator"`
			}
			if err := json.Unmarshal([]byte(u.Payload), &p); err != nil {
				return fmt.Errorf("decode %s: %w", utility, err)
			}
			if p.Operator != operator {
				return fmt.Errorf("%w: batch merge utility %s is %s's, not %s's", fault.ErrForbidden, utility, p.Operator, operator)
			}
		}
		owners := make([]coin.PartyID, len(calls))
		seen := map[coin.ContractID]bool{}
		for i, call := range calls {
			for _, in := range call.Inputs {
				if seen[in] {
					return fault.Invalid("mergeCalls", "holding %s is an input twice", in)
				}
				seen[in] = true
			}
			m, err := store.MergeDelegationByID(ctx, x.DB(), call.Delegation)
			if errors.Is(err, store.ErrNotFound) || err == nil && m.Status != MergeActive {
				return fmt.Errorf("%w: no active merge delegation %s", fault.ErrNotFound, call.Delegation)
			} else if err != nil {
				return err
			}
			if m.Operator != operator {
				return fmt.Errorf("%w: merge delegation %s is to %s, not %s", fault.ErrForbidden, call.Delegation, m.Operator, operator)
			}
			owners[i] = m.Owner
		}
		if err := x.LockParties(ctx, owners...); err != nil {
			return err
		}
		if err := x.Begin(ctx, "merge-holdings"); err != nil {
			return err
		}
		for i, call := range calls {
			g, ok, err := s.mergeGoalOf(ctx, x.DB(), owners[i])
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("%w: %s's holdings are not merged by delegation", fault.ErrRequirement, owners[i])
			}
			_, used, err := x.MergeInputs(ctx, owners[i], call.Inputs, g)
			if err != nil {
				return err
			}
			if used != len(call.Inputs) {
				return fmt.Errorf("%w: mergeCalls[%d]: %d of the %d inputs are %s's live, unlocked holdings; merge two or more of them", fault.ErrRequirement, i, used, len(call.Inputs), owners[i])
			}
		}
		x.AfterCommit(func(ctx context.Context) error {
			offset = x.Offset()
			return nil
		})
		if cmd.Key != "" {
			x.SaveCommand(cmd, operator, "merge-holdings", x.UpdateID())
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("merge by delegation: %w", err)
	}
	return offset, nil
}
