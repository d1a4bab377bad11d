package external

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// External parties' preapprovals' prepared kinds: the acceptance of the
// setup proposal the validator offers, and one-step sends ordered by the
// sender's TransferCommandCounter (validator-internal.yaml, SPLICE-NOTES
// a.3), each with the TransferCommand it creates and archives (ledger/scan
// reads them back for transfer-command/status). Their effects are the
// core's preapproval rules (ledger.Tx's NewPreapproval, SendPreapproved).

// setupProposalPayload is an ExternalPartySetupProposal's payload.
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

// setupProposal loads an active proposal; a missing, archived or
// other-template contract is ErrNotFound, another party's a validation
// error.
func setupProposal(ctx context.Context, db bun.IDB, cid coin.ContractID, user coin.PartyID) (setupProposalPayload, error) {
	var p setupProposalPayload
	c, err := store.ContractByID(ctx, db, cid)
	if err != nil {
		return p, fmt.Errorf("setup proposal %s: %w", cid, err)
	}
	if c.TemplateID != ledger.TemplateExternalPartySetupProposal || c.ArchivedOffset != nil {
		return p, fmt.Errorf("%w: no pending setup proposal %s", fault.ErrNotFound, cid)
	}
	if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
		return p, fmt.Errorf("decode %s: %w", cid, err)
	}
	if p.User != user {
		return p, fault.Invalid("contract_id", "%s is not a setup proposal for %s", cid, user)
	}
	return p, nil
}

func fundSetupProposalAccept(ctx context.Context, l *ledger.Ledger, _ *PreparedBody) error {
	return l.Preapprovals().FundProvider(ctx, l.Operator(), ledger.PreapprovalLifetime)
}

// runSetupProposalAccept archives the proposal and creates the party's
// preapproval, provided and paid by the proposal's validator, until the
// proposal's preapprovalExpiresAt.
func runSetupProposalAccept(ctx context.Context, x *ledger.Tx, b *PreparedBody) (coin.ContractID, error) {
	if err := DecodeArgs(b, &struct{}{}); err != nil {
		return "", err
	}
	if len(b.ContractIDs) != 1 {
		return "", fault.Invalid("transaction", "must name exactly one setup proposal")
	}
	cid := b.ContractIDs[0]
	p, err := setupProposal(ctx, x.DB(), cid, b.Party)
	if err != nil {
		return "", err
	}
	expires, err := time.Parse(time.RFC3339Nano, p.PreapprovalExpiresAt)
	if err != nil {
		return "", fmt.Errorf("setup proposal %s: preapprovalExpiresAt: %w", cid, err)
	}
	x.Archive(cid)
	pre, exists, err := x.NewPreapproval(ctx, b.Party, p.Validator, expires)
	if err != nil {
		return "", err
	}
	if exists {
		return "", fmt.Errorf("%w: %s has a transfer preapproval already (%s)", fault.ErrConflict, b.Party, pre)
	}
	return pre, nil
}

// counter is sender's TransferCommandCounter and its next nonce;
// ErrNotFound when sender has none (its next nonce is 0).
func counter(ctx context.Context, db bun.IDB, sender coin.PartyID) (*store.Contract, int64, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, db, ledger.TemplateTransferCommandCounter, sender)
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
	return nil, 0, fmt.Errorf("%w: %s has no TransferCommandCounter: its next nonce is 0", fault.ErrNotFound, sender)
}

// preapprovalSendArgs are the args of KindTransferPreapprovalSend.
type preapprovalSendArgs struct {
	Receiver    coin.PartyID `json:"receiver"`
	Amount      coin.Amount  `json:"amount"`
	ExpiresAt   string       `json:"expires_at"`
	Nonce       int64        `json:"nonce"`
	Description string       `json:"description"`
}

// nonceConflict is ErrConflict for a preapproval send whose nonce got is
// not sender's next, want.
func nonceConflict(sender coin.PartyID, got, want int64) error {
	return fmt.Errorf("%w: nonce %d is not the next nonce of %s, which is %d (read it from GET /v0/transfer-command-counter/%s)",
		fault.ErrConflict, got, sender, want, sender)
}

// runTransferPreapprovalSend checks the nonce and expiry again, sends
// through the receiver's preapproval and advances the counter.
func (s *Service) runTransferPreapprovalSend(ctx context.Context, x *ledger.Tx, b *PreparedBody) (coin.ContractID, error) {
	var a preapprovalSendArgs
	if err := DecodeArgs(b, &a); err != nil {
		return "", err
	}
	exp, err := time.Parse(time.RFC3339Nano, a.ExpiresAt)
	if err != nil {
		return "", fault.Invalid("transaction", "has a malformed expires_at: %v", err)
	}
	if !x.Now().Before(exp) {
		return "", fmt.Errorf("%w: the transfer expired at %s", fault.ErrExpired, a.ExpiresAt)
	}
	c, next, err := counter(ctx, x.DB(), b.Party)
	if err != nil && !errors.Is(err, fault.ErrNotFound) {
		return "", err
	}
	if a.Nonce != next {
		return "", nonceConflict(b.Party, a.Nonce, next)
	}
	r, err := x.SendPreapproved(ctx, b.Party, a.Receiver, a.Amount, a.Description)
	if err != nil {
		return "", err
	}
	dso := s.l.DSO()
	s.recordTransferCommand(x, b, a)
	if c != nil {
		x.Archive(c.ContractID)
	}
	x.Create(ledger.TemplateTransferCommandCounter, transferCommandCounterPayload{
		DSO: dso, Sender: b.Party, NextNonce: strconv.FormatInt(next+1, 10),
	}, dso, b.Party)
	if len(r.Outputs) > 0 {
		return r.Outputs[0], nil
	}
	return "", nil
}

type transferCommandPayload struct {
	DSO         coin.PartyID `json:"dso"`
	Sender      coin.PartyID `json:"sender"`
	Receiver    coin.PartyID `json:"receiver"`
	Delegate    coin.PartyID `json:"delegate"`
	Amount      coin.Amount  `json:"amount"`
	ExpiresAt   string       `json:"expiresAt"`
	Nonce       string       `json:"nonce"`
	Description *string      `json:"description"`
}

// recordTransferCommand creates the TransferCommand of an external send
// and archives it in the same transaction, as the DSO's delegate
// executing TransferCommand_Send would: the send is done when submitted,
// and transfer-command/status reports it sent.
func (s *Service) recordTransferCommand(x *ledger.Tx, b *PreparedBody, a preapprovalSendArgs) {
	var desc *string
	if a.Description != "" {
		desc = &a.Description
	}
	dso, op := s.l.DSO(), s.l.Operator()
	cid := transferCommandID(b)
	x.CreateWithID(cid, ledger.TemplateTransferCommand, transferCommandPayload{
		DSO: dso, Sender: b.Party, Receiver: a.Receiver, Delegate: op, Amount: a.Amount,
		ExpiresAt: a.ExpiresAt, Nonce: strconv.FormatInt(a.Nonce, 10), Description: desc,
	}, b.Party, dso, op)
	x.Archive(cid)
}

// transferCommandID is the contract id of the TransferCommand a prepared
// preapproval send creates: fixed by the preparation (its random nonce),
// so prepare-send can name it before the sender signs, and a preparation
// executes once.
func transferCommandID(b *PreparedBody) coin.ContractID {
	disc := sha256.Sum256([]byte("transfer-command\x00" + string(b.Party) + "\x00" + b.Nonce))
	suffix := sha256.Sum256(disc[:])
	return coin.ContractID("00" + hex.EncodeToString(disc[:]) + "ca111220" + hex.EncodeToString(suffix[:]))
}

// transferCommandIDPrefix is transferCommandID without its suffix, the
// part a Canton contract id has before the transaction commits: what
// prepare-send tells the client to look for in transfer-command/status.
func transferCommandIDPrefix(b *PreparedBody) string {
	return string(transferCommandID(b))[:len("00")+64]
}
