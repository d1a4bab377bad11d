package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// Merge delegations as an app's code drives them through the Ledger API
// (the wallet SDK's createMergeDelegationProposal,
// approveMergeDelegationProposal, createBatchMergeUtility and
// useMergeDelegations): the owner proposes, the operator accepts, and the
// operator merges the owner's holdings by BatchMergeUtility_BatchMerge,
// each a MergeDelegation_Merge of a self-transfer's inputs, under the
// rules the merge automation runs (mergeInputs).

// TemplateBatchMergeUtility is the operator's contract through which it
// merges for many owners in one transaction.
const TemplateBatchMergeUtility = "#splice-util-token-standard-wallet:Splice.Util.Token.Wallet.MergeDelegation:BatchMergeUtility"

// ProposeMergeDelegationTo is owner's MergeDelegationProposal to operator,
// which must be this validator's operator, once per key.
func (l *Ledger) ProposeMergeDelegationTo(ctx context.Context, owner, operator coin.PartyID, key string) (MergeDelegation, error) {
	if operator != l.operator {
		return MergeDelegation{}, invalid("operator", "%s is not this validator's operator %s, who merges by delegation", operator, l.operator)
	}
	return l.proposeMergeDelegation(ctx, owner, key)
}

// AcceptMergeDelegationAs is MergeDelegationProposal_Accept by actor, the
// proposal's operator, once per key.
func (l *Ledger) AcceptMergeDelegationAs(ctx context.Context, actor coin.PartyID, proposal coin.ContractID, key string) (MergeDelegation, error) {
	return l.acceptMergeDelegation(ctx, actor, proposal, key)
}

// CreateBatchMergeUtility creates operator's BatchMergeUtility, once per
// key; operator must be this validator's operator.
func (l *Ledger) CreateBatchMergeUtility(ctx context.Context, operator coin.PartyID, key string) (coin.ContractID, error) {
	if operator != l.operator {
		return "", invalid("operator", "%s is not this validator's operator %s, who merges by delegation", operator, l.operator)
	}
	var cid coin.ContractID
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		if err := l.claimOnce(ctx, c.tx, key); err != nil {
			return err
		}
		t, err := c.begin(ctx, "batch-merge-utility")
		if err != nil {
			return err
		}
		cid = t.create(TemplateBatchMergeUtility, map[string]coin.PartyID{"operator": operator}, operator)
		if key != "" {
			t.afterCommit(func(ctx context.Context) error {
				return l.saveCommand(ctx, t, key, operator, "batch-merge-utility", string(cid))
			})
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
// into one holding, all in one transaction, once per key: operator must be
// each delegation's operator and, when utility is set, own that active
// BatchMergeUtility; each input must be the owner's live, unlocked
// holding. It returns the update's offset.
func (l *Ledger) MergeByDelegation(ctx context.Context, operator coin.PartyID, utility coin.ContractID, calls []DelegatedMerge, key string) (int64, error) {
	if len(calls) == 0 || len(calls) > MaxTradeLegs {
		return 0, invalid("mergeCalls", "give 1 to %d merges, not %d", MaxTradeLegs, len(calls))
	}
	var offset int64
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		if err := l.claimOnce(ctx, c.tx, key); err != nil {
			return err
		}
		if utility != "" {
			u, err := store.ContractByID(ctx, c.tx, utility)
			if errors.Is(err, store.ErrNotFound) || err == nil && (u.TemplateID != TemplateBatchMergeUtility || u.ArchivedOffset != nil) {
				return fmt.Errorf("%w: no active batch merge utility %s", ErrNotFound, utility)
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
				return fmt.Errorf("%w: batch merge utility %s is %s's, not %s's", ErrForbidden, utility, p.Operator, operator)
			}
		}
		owners := make([]coin.PartyID, len(calls))
		seen := map[coin.ContractID]bool{}
		for i, call := range calls {
			for _, in := range call.Inputs {
				if seen[in] {
					return invalid("mergeCalls", "holding %s is an input twice", in)
				}
				seen[in] = true
			}
			m, err := store.MergeDelegationByID(ctx, c.tx, call.Delegation)
			if errors.Is(err, store.ErrNotFound) || err == nil && m.Status != MergeActive {
				return fmt.Errorf("%w: no active merge delegation %s", ErrNotFound, call.Delegation)
			} else if err != nil {
				return err
			}
			if m.Operator != operator {
				return fmt.Errorf("%w: merge delegation %s is to %s, not %s", ErrForbidden, call.Delegation, m.Operator, operator)
			}
			owners[i] = m.Owner
		}
		if err := l.lockParties(ctx, c.tx, owners...); err != nil {
			return err
		}
		t, err := c.begin(ctx, "merge-holdings")
		if err != nil {
			return err
		}
		for i, call := range calls {
			g, ok, err := l.mergeGoalOf(ctx, c.tx, owners[i])
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("%w: %s's holdings are not merged by delegation", ErrRequirement, owners[i])
			}
			_, used, err := t.mergeInputs(ctx, owners[i], call.Inputs, g)
			if err != nil {
				return err
			}
			if used != len(call.Inputs) {
				return fmt.Errorf("%w: mergeCalls[%d]: %d of the %d inputs are %s's live, unlocked holdings; merge two or more of them", ErrRequirement, i, used, len(call.Inputs), owners[i])
			}
		}
		t.afterCommit(func(ctx context.Context) error {
			offset = t.offset
			if key == "" {
				return nil
			}
			return l.saveCommand(ctx, t, key, operator, "merge-holdings", t.update)
		})
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("merge by delegation: %w", err)
	}
	return offset, nil
}
