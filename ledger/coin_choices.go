package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// The coin's own choices as an app's code exercises them through the
// Ledger API (AmuletRules_DevNet_Tap, TransferPreapproval_Renew and
// _Cancel, AmuletRules_DevNet_FeatureApp, the TransferPreapprovalProposal
// the validator's automation accepts): each runs the rule the wallet's own
// path runs, under the command's deduplication key, so its completion is
// written with its effects.

// TemplateTransferPreapprovalProposal is splice-wallet's proposal of a
// transfer preapproval: the receiver signs it and the provider's
// automation accepts it, paying the fee.
const TemplateTransferPreapprovalProposal = "#splice-wallet:Splice.Wallet.TransferPreapproval:TransferPreapprovalProposal"

// RenewPreapprovalAs is TransferPreapproval_Renew by actor, the
// preapproval's provider: the preapproval is extended to until, the
// provider paying the fee for the extension, once per cmd's key.
func (l *Ledger) RenewPreapprovalAs(ctx context.Context, actor coin.PartyID, cid coin.ContractID, until time.Time, cmd Command) (coin.ContractID, error) {
	return l.Preapprovals().renew(ctx, cid, actor, until, cmd)
}

// CancelPreapprovalAs is TransferPreapproval_Cancel by actor, the
// preapproval's receiver or provider, once per cmd's key.
func (l *Ledger) CancelPreapprovalAs(ctx context.Context, actor coin.PartyID, cid coin.ContractID, cmd Command) error {
	p, err := store.TransferPreapprovalByID(ctx, l.db, cid)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: transfer preapproval %s", ErrNotFound, cid)
	} else if err != nil {
		return err
	}
	return l.Preapprovals().cancel(ctx, p.Receiver, cid, actor, cmd)
}

// PreapprovalProposal is a TransferPreapprovalProposal's payload.
type PreapprovalProposal struct {
	Receiver    coin.PartyID  `json:"receiver"`
	Provider    coin.PartyID  `json:"provider"`
	ExpectedDSO *coin.PartyID `json:"expectedDso"`
}

// ProposePreapproval creates receiver's TransferPreapprovalProposal to
// provider, once per cmd's key. The proposal is then accepted as the validator's
// automation does: at once (and by AcceptPreapprovalProposals if that
// fails); a receiver with a valid preapproval keeps it. A proposal naming
// another DSO, or a provider other than this validator's operator, is
// refused.
func (l *Ledger) ProposePreapproval(ctx context.Context, p PreapprovalProposal, cmd Command) (coin.ContractID, error) {
	if p.ExpectedDSO != nil && *p.ExpectedDSO != l.dso {
		return "", fmt.Errorf("%w: expectedDso %s is not this network's DSO %s", ErrRequirement, *p.ExpectedDSO, l.dso)
	}
	for _, q := range []coin.PartyID{p.Receiver, p.Provider} {
		if err := l.Users().KnownParty(ctx, q); err != nil {
			return "", err
		}
	}
	if p.Provider != l.operator {
		return "", invalid("provider", "%s is not this validator's operator %s, whose automation accepts preapproval proposals", p.Provider, l.operator)
	}
	var cid coin.ContractID
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		if err := l.claimOnce(ctx, c.tx, cmd.Key); err != nil {
			return err
		}
		if err := l.lockParties(ctx, c.tx, p.Receiver); err != nil {
			return err
		}
		t, err := c.begin(ctx, "transfer-preapproval-proposal")
		if err != nil {
			return err
		}
		cid = t.create(TemplateTransferPreapprovalProposal, p, p.Receiver, p.Provider)
		if cmd.Key != "" {
			t.afterCommit(func(ctx context.Context) error {
				return l.saveCommand(ctx, t, cmd, p.Receiver, "transfer-preapproval-proposal", string(cid))
			})
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("propose a transfer preapproval for %s: %w", p.Receiver, err)
	}
	if _, err := l.AcceptPreapprovalProposal(context.WithoutCancel(ctx), cid); err != nil {
		// The automation tries again.
		l.log.WarnContext(ctx, "accepting a transfer preapproval proposal failed", "contract_id", cid, "err", err)
	}
	return cid, nil
}

// AcceptPreapprovalProposal is the operator accepting proposal cid
// (TransferPreapprovalProposal_Accept): the proposal is archived and the
// receiver's preapproval created by the rule Preapprovals().Create runs, the
// operator paying its fee. A receiver with a valid preapproval keeps it.
func (l *Ledger) AcceptPreapprovalProposal(ctx context.Context, cid coin.ContractID) (coin.ContractID, error) {
	if err := l.Preapprovals().FundProvider(ctx, l.operator, PreapprovalLifetime); err != nil {
		return "", fmt.Errorf("accept transfer preapproval proposal %s: %w", cid, err)
	}
	var out coin.ContractID
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		ct, err := store.ContractByID(ctx, c.tx, cid)
		if errors.Is(err, store.ErrNotFound) || err == nil && (ct.TemplateID != TemplateTransferPreapprovalProposal || ct.ArchivedOffset != nil) {
			return fmt.Errorf("%w: no pending transfer preapproval proposal %s", ErrNotFound, cid)
		} else if err != nil {
			return err
		}
		var p PreapprovalProposal
		if err := json.Unmarshal([]byte(ct.Payload), &p); err != nil {
			return fmt.Errorf("decode %s: %w", cid, err)
		}
		if p.Provider != l.operator {
			return fmt.Errorf("%w: proposal %s names provider %s, not this validator's operator", ErrForbidden, cid, p.Provider)
		}
		if err := l.lockParties(ctx, c.tx, p.Receiver, p.Provider); err != nil {
			return err
		}
		t, err := c.begin(ctx, "accept-transfer-preapproval-proposal")
		if err != nil {
			return err
		}
		t.archive(cid)
		out, _, err = t.newPreapproval(ctx, p.Receiver, p.Provider, t.now.Add(PreapprovalLifetime))
		return err
	})
	if err != nil {
		return "", fmt.Errorf("accept transfer preapproval proposal %s: %w", cid, err)
	}
	return out, nil
}

// AcceptPreapprovalProposals accepts every pending proposal naming the
// operator, as the validator's automation does; it returns how many.
func (l *Ledger) AcceptPreapprovalProposals(ctx context.Context) (int, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, l.db, TemplateTransferPreapprovalProposal, l.operator)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range cs {
		_, err := l.AcceptPreapprovalProposal(ctx, c.ContractID)
		switch {
		case err == nil:
			n++
		case errors.Is(err, ErrNotFound), errors.Is(err, ErrForbidden), errors.Is(err, store.ErrStale):
		default:
			return n, err
		}
	}
	return n, nil
}
