package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// External parties' preapprovals: the setup proposal the validator offers
// and the external party accepts by signing, and one-step sends ordered by
// the sender's TransferCommandCounter (validator-internal.yaml,
// SPLICE-NOTES a.3). Both execute through the prepare/submit mechanism of
// prepared.go and reuse the preapproval rules of preapprovals.go.

// Templates of the real network.
const (
	// TemplateExternalPartySetupProposal is the validator's offer to
	// provide an external party's TransferPreapproval.
	TemplateExternalPartySetupProposal = "#splice-amulet:Splice.AmuletRules:ExternalPartySetupProposal"
	// TemplateTransferCommandCounter holds an external sender's next nonce.
	TemplateTransferCommandCounter = "#splice-amulet:Splice.ExternalPartyAmuletRules:TransferCommandCounter"
)

// SetupProposalPayload is an ExternalPartySetupProposal's payload.
type SetupProposalPayload = setupProposalPayload

type setupProposalPayload struct {
	Validator            coin.PartyID `json:"validator"`
	User                 coin.PartyID `json:"user"`
	DSO                  coin.PartyID `json:"dso"`
	CreatedAt            string       `json:"createdAt"`
	PreapprovalExpiresAt string       `json:"preapprovalExpiresAt"`
}

type transferCommandCounterPayload struct {
	DSO       coin.PartyID `json:"dso"`
	Sender    coin.PartyID `json:"sender"`
	NextNonce string       `json:"nextNonce"`
}

// CheckSetupProposal refuses cid unless it is a pending setup proposal for
// user (ErrNotFound, or a validation error for another party's).
func CheckSetupProposal(ctx context.Context, db bun.IDB, cid coin.ContractID, user coin.PartyID) error {
	_, err := setupProposal(ctx, db, cid, user)
	return err
}

// setupProposal loads an active proposal; a missing, archived or
// other-template contract is ErrNotFound, another party's a validation
// error.
func setupProposal(ctx context.Context, db bun.IDB, cid coin.ContractID, user coin.PartyID) (setupProposalPayload, error) {
	var p setupProposalPayload
	c, err := store.ContractByID(ctx, db, cid)
	if err != nil {
		return p, fmt.Errorf("setup proposal %s: %w", cid, err)
	}
	if c.TemplateID != TemplateExternalPartySetupProposal || c.ArchivedOffset != nil {
		return p, fmt.Errorf("%w: no pending setup proposal %s", ErrNotFound, cid)
	}
	if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
		return p, fmt.Errorf("decode %s: %w", cid, err)
	}
	if p.User != user {
		return p, invalid("contract_id", "%s is not a setup proposal for %s", cid, user)
	}
	return p, nil
}

func fundSetupProposalAccept(ctx context.Context, l *Ledger, _ *PreparedBody) error {
	return l.Preapprovals().FundProvider(ctx, l.operator, PreapprovalLifetime)
}

// runSetupProposalAccept archives the proposal and creates the party's
// preapproval, provided and paid by the proposal's validator, until the
// proposal's preapprovalExpiresAt.
func runSetupProposalAccept(ctx context.Context, t *txn, b *PreparedBody) (coin.ContractID, error) {
	if err := decodeArgs(b, &struct{}{}); err != nil {
		return "", err
	}
	if len(b.ContractIDs) != 1 {
		return "", invalid("transaction", "must name exactly one setup proposal")
	}
	cid := b.ContractIDs[0]
	p, err := setupProposal(ctx, t.tx, cid, b.Party)
	if err != nil {
		return "", err
	}
	expires, err := time.Parse(time.RFC3339Nano, p.PreapprovalExpiresAt)
	if err != nil {
		return "", fmt.Errorf("setup proposal %s: preapprovalExpiresAt: %w", cid, err)
	}
	t.archive(cid)
	pre, exists, err := t.newPreapproval(ctx, b.Party, p.Validator, expires)
	if err != nil {
		return "", err
	}
	if exists {
		return "", fmt.Errorf("%w: %s has a transfer preapproval already (%s)", ErrConflict, b.Party, pre)
	}
	return pre, nil
}

func counter(ctx context.Context, db bun.IDB, sender coin.PartyID) (*store.Contract, int64, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, db, TemplateTransferCommandCounter, sender)
	if err != nil {
		return nil, 0, err
	}
	for i := range cs {
		var p transferCommandCounterPayload
		if err := json.Unmarshal([]byte(cs[i].Payload), &p); err != nil {
			return nil, 0, fmt.Errorf("decode %s: %w", cs[i].ContractID, err)
		}
		if p.Sender == sender {
			n, err := strconv.ParseInt(p.NextNonce, 10, 64)
			if err != nil {
				return nil, 0, fmt.Errorf("%s: nextNonce: %w", cs[i].ContractID, err)
			}
			return &cs[i], n, nil
		}
	}
	return nil, 0, fmt.Errorf("%w: %s has no TransferCommandCounter: its next nonce is 0", ErrNotFound, sender)
}

// PreapprovalSendArgs are the args of KindTransferPreapprovalSend.
type PreapprovalSendArgs = preapprovalSendArgs

type preapprovalSendArgs struct {
	Receiver    coin.PartyID `json:"receiver"`
	Amount      coin.Amount  `json:"amount"`
	ExpiresAt   string       `json:"expires_at"`
	Nonce       int64        `json:"nonce"`
	Description string       `json:"description"`
}

// NonceConflict is ErrConflict for a preapproval send whose nonce got is
// not sender's next, want.
func NonceConflict(sender coin.PartyID, got, want int64) error {
	return nonceConflict(sender, got, want)
}

func nonceConflict(sender coin.PartyID, got, want int64) error {
	return fmt.Errorf("%w: nonce %d is not the next nonce of %s, which is %d (read it from GET /v0/transfer-command-counter/%s)",
		ErrConflict, got, sender, want, sender)
}

// runTransferPreapprovalSend checks the nonce and expiry again, sends
// through the receiver's preapproval and advances the counter.
func runTransferPreapprovalSend(ctx context.Context, t *txn, b *PreparedBody) (coin.ContractID, error) {
	var a preapprovalSendArgs
	if err := decodeArgs(b, &a); err != nil {
		return "", err
	}
	exp, err := time.Parse(time.RFC3339Nano, a.ExpiresAt)
	if err != nil {
		return "", invalid("transaction", "has a malformed expires_at: %v", err)
	}
	if !t.now.Before(exp) {
		return "", fmt.Errorf("%w: the transfer expired at %s", ErrExpired, a.ExpiresAt)
	}
	c, next, err := counter(ctx, t.tx, b.Party)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return "", err
	}
	if a.Nonce != next {
		return "", nonceConflict(b.Party, a.Nonce, next)
	}
	r, err := t.sendPreapproved(ctx, b.Party, a.Receiver, a.Amount, a.Description)
	if err != nil {
		return "", err
	}
	t.recordTransferCommand(b, a)
	if c != nil {
		t.archive(c.ContractID)
	}
	t.create(TemplateTransferCommandCounter, transferCommandCounterPayload{
		DSO: t.l.dso, Sender: b.Party, NextNonce: strconv.FormatInt(next+1, 10),
	}, t.l.dso, b.Party)
	if len(r.Outputs) > 0 {
		return r.Outputs[0], nil
	}
	return "", nil
}
