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

// CreateSetupProposal creates an ExternalPartySetupProposal from the
// validator operator to the external party user. A pending proposal or a
// valid preapproval of user is a conflict. The operator must be able to
// pay the preapproval fee it will owe on acceptance (on a development
// network the faucet taps what is missing).
func (l *Ledger) CreateSetupProposal(ctx context.Context, user coin.PartyID) (coin.ContractID, error) {
	if _, err := l.externalParty(ctx, l.db, user); err != nil {
		return "", err
	}
	// Conflicts first (again under the lock below), so a refused request
	// taps nothing.
	if err := l.setupConflict(ctx, l.db, user); err != nil {
		return "", fmt.Errorf("create setup proposal for %s: %w", user, err)
	}
	if err := l.Preapprovals().fundProvider(ctx, l.operator, PreapprovalLifetime); err != nil {
		return "", fmt.Errorf("create setup proposal for %s: %w", user, err)
	}
	var cid coin.ContractID
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		if err := l.lockParties(ctx, c.tx, user, l.operator); err != nil {
			return err
		}
		if err := l.setupConflict(ctx, c.tx, user); err != nil {
			return err
		}
		t, err := c.begin(ctx, "create-external-party-setup-proposal")
		if err != nil {
			return err
		}
		cid = t.create(TemplateExternalPartySetupProposal, setupProposalPayload{
			Validator: l.operator, User: user, DSO: l.dso, CreatedAt: FormatTime(t.now),
			PreapprovalExpiresAt: FormatTime(t.now.Add(PreapprovalLifetime)),
		}, l.operator, user)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("create setup proposal for %s: %w", user, err)
	}
	return cid, nil
}

// setupConflict reports ErrConflict when user has a pending setup
// proposal or a valid preapproval.
func (l *Ledger) setupConflict(ctx context.Context, db bun.IDB, user coin.PartyID) error {
	if ps, err := l.setupProposals(ctx, db, user); err != nil {
		return err
	} else if len(ps) > 0 {
		return fmt.Errorf("%w: %s has a setup proposal already (%s)", ErrConflict, user, ps[0].ContractID)
	}
	p, err := store.LiveTransferPreapproval(ctx, db, user)
	if err == nil && l.now().Before(p.ExpiresAt) {
		return fmt.Errorf("%w: %s has a transfer preapproval already (%s)", ErrConflict, user, p.ContractID)
	}
	if err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	return nil
}

// setupProposals lists the active proposals of user (all when empty).
func (l *Ledger) setupProposals(ctx context.Context, db bun.IDB, user coin.PartyID) ([]*store.Contract, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, db, TemplateExternalPartySetupProposal, user)
	if err != nil {
		return nil, err
	}
	out := []*store.Contract{}
	for i := range cs {
		var p setupProposalPayload
		if err := json.Unmarshal([]byte(cs[i].Payload), &p); err != nil {
			return nil, fmt.Errorf("decode %s: %w", cs[i].ContractID, err)
		}
		if p.Validator == l.operator && (user == "" || p.User == user) {
			out = append(out, &cs[i])
		}
	}
	return out, nil
}

// setupProposal loads an active proposal; a missing, archived or
// other-template contract is ErrNotFound, another party's a validation
// error.
func (l *Ledger) setupProposal(ctx context.Context, db bun.IDB, cid coin.ContractID, user coin.PartyID) (setupProposalPayload, error) {
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

// PrepareAcceptSetupProposal prepares user's acceptance of the setup
// proposal cid, for user to sign.
func (l *Ledger) PrepareAcceptSetupProposal(ctx context.Context, cid coin.ContractID, user coin.PartyID) (Prepared, error) {
	if _, err := l.externalParty(ctx, l.db, user); err != nil {
		return Prepared{}, err
	}
	if _, err := l.setupProposal(ctx, l.db, cid, user); err != nil {
		return Prepared{}, err
	}
	return l.prepare(ctx, user, KindSetupProposalAccept, []coin.ContractID{cid}, struct{}{}, time.Time{})
}

func fundSetupProposalAccept(ctx context.Context, l *Ledger, _ *PreparedBody) error {
	return l.Preapprovals().fundProvider(ctx, l.operator, PreapprovalLifetime)
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
	p, err := t.l.setupProposal(ctx, t.tx, cid, b.Party)
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

func (l *Ledger) counter(ctx context.Context, db bun.IDB, sender coin.PartyID) (*store.Contract, int64, error) {
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

// NextNonce is the nonce sender's next preapproval send must carry.
func (l *Ledger) NextNonce(ctx context.Context, db bun.IDB, sender coin.PartyID) (int64, error) {
	_, n, err := l.counter(ctx, db, sender)
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	return n, err
}

// PreapprovalSendRequest is an external sender's one-step transfer through
// the receiver's preapproval.
type PreapprovalSendRequest struct {
	Sender      coin.PartyID
	Receiver    coin.PartyID
	Amount      coin.Amount
	ExpiresAt   time.Time
	Nonce       int64
	Description string
}

type preapprovalSendArgs struct {
	Receiver    coin.PartyID `json:"receiver"`
	Amount      coin.Amount  `json:"amount"`
	ExpiresAt   string       `json:"expires_at"`
	Nonce       int64        `json:"nonce"`
	Description string       `json:"description"`
}

// PrepareTransferPreapprovalSend prepares a send for the sender to sign.
// The receiver must have a valid preapproval (else 400) and the nonce must
// be the sender's next (else ErrConflict). The preparation expires at
// ExpiresAt at the latest.
func (l *Ledger) PrepareTransferPreapprovalSend(ctx context.Context, r PreapprovalSendRequest) (Prepared, error) {
	if err := checkAmount("amount", r.Amount); err != nil {
		return Prepared{}, err
	}
	if err := checkText("description", r.Description); err != nil {
		return Prepared{}, err
	}
	if r.Nonce < 0 {
		return Prepared{}, invalid("nonce", "must not be negative")
	}
	if err := checkExpiry("expires_at", r.ExpiresAt, l.now()); err != nil {
		return Prepared{}, err
	}
	if _, err := l.externalParty(ctx, l.db, r.Sender); err != nil {
		return Prepared{}, err
	}
	if _, err := l.Preapprovals().valid(ctx, l.db, r.Receiver); err != nil {
		return Prepared{}, err
	}
	next, err := l.NextNonce(ctx, l.db, r.Sender)
	if err != nil {
		return Prepared{}, err
	}
	if r.Nonce != next {
		return Prepared{}, nonceConflict(r.Sender, r.Nonce, next)
	}
	p, err := l.prepare(ctx, r.Sender, KindTransferPreapprovalSend, nil, preapprovalSendArgs{
		Receiver: r.Receiver, Amount: r.Amount, ExpiresAt: FormatTime(r.ExpiresAt), Nonce: r.Nonce, Description: r.Description,
	}, r.ExpiresAt)
	if err != nil {
		return Prepared{}, err
	}
	_, b, err := DecodePrepared(p.Transaction)
	if err != nil {
		return Prepared{}, err
	}
	p.TransferCommandIDPrefix = transferCommandIDPrefix(b)
	return p, nil
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
	c, next, err := t.l.counter(ctx, t.tx, b.Party)
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
