package external

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// The transactions an external party signs (SPLICE-NOTES a.3): this
// package prepares them (Prepare stores what is to be signed) and
// verifies and submits them (Submit), each by its kind's Executor
// (kinds.go), whose effect runs the core's rules through ledger.Tx.

// PrepareExternalTransfer prepares a one-step transfer of amount from the
// external party sender to receiver, for sender to sign.
func (s *Service) PrepareExternalTransfer(ctx context.Context, sender, receiver coin.PartyID, amount coin.Amount, description string) (Prepared, error) {
	if err := bounds.CheckAmount("amount", amount); err != nil {
		return Prepared{}, err
	}
	if err := bounds.CheckText("description", description); err != nil {
		return Prepared{}, err
	}
	if err := s.l.KnownParty(ctx, receiver); err != nil {
		return Prepared{}, err
	}
	return s.Prepare(ctx, sender, KindExternalTransfer, nil,
		externalTransferArgs{Receiver: receiver, Amount: amount, Description: description}, time.Time{})
}

// CreateSetupProposal creates an ExternalPartySetupProposal from the
// validator operator to the external party user. A pending proposal or a
// valid preapproval of user is a conflict. The operator must be able to
// pay the preapproval fee it will owe on acceptance (on a development
// network the faucet taps what is missing).
func (s *Service) CreateSetupProposal(ctx context.Context, user coin.PartyID) (coin.ContractID, error) {
	if _, err := s.ExternalPartyKey(ctx, user); err != nil {
		return "", err
	}
	// Conflicts first (again under the lock below), so a refused request
	// taps nothing.
	if err := s.setupConflict(ctx, s.l.DB(), user); err != nil {
		return "", fmt.Errorf("create setup proposal for %s: %w", user, err)
	}
	op := s.l.Operator()
	if err := s.l.Preapprovals().FundProvider(ctx, op, ledger.PreapprovalLifetime); err != nil {
		return "", fmt.Errorf("create setup proposal for %s: %w", user, err)
	}
	var cid coin.ContractID
	err := s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		if err := x.LockParties(ctx, user, op); err != nil {
			return err
		}
		if err := s.setupConflict(ctx, x.DB(), user); err != nil {
			return err
		}
		if err := x.Begin(ctx, "create-external-party-setup-proposal"); err != nil {
			return err
		}
		cid = x.Create(ledger.TemplateExternalPartySetupProposal, setupProposalPayload{
			Validator: op, User: user, DSO: s.l.DSO(), CreatedAt: ledger.FormatTime(x.Now()),
			PreapprovalExpiresAt: ledger.FormatTime(x.Now().Add(ledger.PreapprovalLifetime)),
		}, op, user)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("create setup proposal for %s: %w", user, err)
	}
	return cid, nil
}

// setupConflict reports ErrConflict when user has a pending setup
// proposal or a valid preapproval.
func (s *Service) setupConflict(ctx context.Context, db bun.IDB, user coin.PartyID) error {
	if ps, err := s.setupProposals(ctx, db, user); err != nil {
		return err
	} else if len(ps) > 0 {
		return fmt.Errorf("%w: %s has a setup proposal already (%s)", fault.ErrConflict, user, ps[0].ContractID)
	}
	p, err := store.LiveTransferPreapproval(ctx, db, user)
	if err == nil && s.l.Now().Before(p.ExpiresAt) {
		return fmt.Errorf("%w: %s has a transfer preapproval already (%s)", fault.ErrConflict, user, p.ContractID)
	}
	if err != nil && !errors.Is(err, fault.ErrNotFound) {
		return err
	}
	return nil
}

// PrepareAcceptSetupProposal prepares user's acceptance of the setup
// proposal cid, for user to sign.
func (s *Service) PrepareAcceptSetupProposal(ctx context.Context, cid coin.ContractID, user coin.PartyID) (Prepared, error) {
	if _, err := s.ExternalPartyKey(ctx, user); err != nil {
		return Prepared{}, err
	}
	if _, err := setupProposal(ctx, s.l.DB(), cid, user); err != nil {
		return Prepared{}, err
	}
	return s.Prepare(ctx, user, KindSetupProposalAccept, []coin.ContractID{cid}, struct{}{}, time.Time{})
}

// NextNonce is the nonce sender's next preapproval send must carry.
func (s *Service) NextNonce(ctx context.Context, db bun.IDB, sender coin.PartyID) (int64, error) {
	_, n, err := counter(ctx, db, sender)
	if errors.Is(err, fault.ErrNotFound) {
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

// PrepareTransferPreapprovalSend prepares a send for the sender to sign.
// The receiver must have a valid preapproval (else 400) and the nonce must
// be the sender's next (else ErrConflict). The preparation expires at
// ExpiresAt at the latest.
func (s *Service) PrepareTransferPreapprovalSend(ctx context.Context, r PreapprovalSendRequest) (Prepared, error) {
	if err := bounds.CheckAmount("amount", r.Amount); err != nil {
		return Prepared{}, err
	}
	if err := bounds.CheckText("description", r.Description); err != nil {
		return Prepared{}, err
	}
	if r.Nonce < 0 {
		return Prepared{}, fault.Invalid("nonce", "must not be negative")
	}
	if err := bounds.CheckExpiry("expires_at", r.ExpiresAt, s.l.Now()); err != nil {
		return Prepared{}, err
	}
	if _, err := s.ExternalPartyKey(ctx, r.Sender); err != nil {
		return Prepared{}, err
	}
	db := s.l.DB()
	if _, err := s.l.Preapprovals().Valid(ctx, db, r.Receiver); err != nil {
		return Prepared{}, err
	}
	next, err := s.NextNonce(ctx, db, r.Sender)
	if err != nil {
		return Prepared{}, err
	}
	if r.Nonce != next {
		return Prepared{}, nonceConflict(r.Sender, r.Nonce, next)
	}
	p, err := s.Prepare(ctx, r.Sender, KindTransferPreapprovalSend, nil, preapprovalSendArgs{
		Receiver: r.Receiver, Amount: r.Amount, ExpiresAt: ledger.FormatTime(r.ExpiresAt), Nonce: r.Nonce, Description: r.Description,
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

// ExternalPartyKey is an external party's registered Ed25519 key. A party
// the ledger does not know is ErrNotFound; a local one a ValidationError
// (the core remembers known parties' rows: ledger.PartyRow).
func (s *Service) ExternalPartyKey(ctx context.Context, party coin.PartyID) (ed25519.PublicKey, error) {
	p, err := s.l.PartyRow(ctx, party)
	if err != nil {
		return nil, err
	}
	if p.Kind != ledger.PartyKindExternal || p.PublicKey == "" {
		return nil, fault.Invalid("party_id", "%s is not an external party", p.PartyID)
	}
	return ParsePublicKey("public_key", p.PublicKey)
}

// Submit verifies and executes a signed prepared transaction: the
// transaction must decode, its recomputed hash must name a preparation of
// this party that is stored, unexpired and not executed, the public key
// must be the party's and the signature must verify over the hash. The
// effect and the executed mark commit together. Submitting an executed
// transaction again changes nothing and answers the first result.
func (s *Service) Submit(ctx context.Context, sub Submission) (SubmitResult, error) {
	l := s.l
	party, err := coin.ParsePartyID(strings.TrimSpace(string(sub.Party)))
	if err != nil {
		return SubmitResult{}, fault.Invalid("party_id", "%v", err)
	}
	raw, body, err := DecodePrepared(sub.Transaction)
	if err != nil {
		return SubmitResult{}, err
	}
	if body.Party != party {
		return SubmitResult{}, fault.Invalid("transaction", "was prepared for %s, not for %s", body.Party, party)
	}
	if sub.Kind != "" && body.Kind != sub.Kind {
		return SubmitResult{}, fault.Invalid("transaction", "is a %s transaction, not %s", body.Kind, sub.Kind)
	}
	exec, ok := s.kinds[body.Kind]
	if !ok {
		return SubmitResult{}, fault.Invalid("transaction", "has unknown kind %q", body.Kind)
	}
	pub, err := ParsePublicKey("public_key", sub.PublicKey)
	if err != nil {
		return SubmitResult{}, err
	}
	known, err := s.ExternalPartyKey(ctx, party)
	if err != nil {
		return SubmitResult{}, err
	}
	if !known.Equal(pub) {
		return SubmitResult{}, fault.Invalid("public_key", "is not the signing key of %s", party)
	}
	hash := PreparedTxHash(raw)
	if err := VerifySignature("signed_tx_hash", pub, hash, sub.SignedTxHash); err != nil {
		return SubmitResult{}, err
	}
	hashHex := hex.EncodeToString(hash)
	if exec.Before != nil {
		p, err := store.PreparedTxByHash(ctx, l.DB(), hashHex)
		if err == nil && p.Party == party && p.Status != store.PreparedExecuted && l.Now().Before(p.ExpiresAt) {
			if err := exec.Before(ctx, l, body); err != nil {
				return SubmitResult{}, fmt.Errorf("submit %s for %s: %w", body.Kind, party, err)
			}
		}
	}
	var res SubmitResult
	err = l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		tx := x.DB()
		res = SubmitResult{}
		if err := x.LockParties(ctx, exec.Parties(l, body)...); err != nil {
			return err
		}
		p, err := store.PreparedTxByHash(ctx, tx, hashHex)
		if errors.Is(err, store.ErrNotFound) || (err == nil && p.Party != party) {
			return fmt.Errorf("%w: no transaction with hash %s was prepared for %s", fault.ErrNotFound, hashHex, party)
		} else if err != nil {
			return err
		}
		if p.Status == store.PreparedExecuted {
			if err := json.Unmarshal([]byte(p.Result), &res); err != nil {
				return fmt.Errorf("decode stored result: %w", err)
			}
			res.Replayed = true
			return nil
		}
		if !l.Now().Before(p.ExpiresAt) {
			return fmt.Errorf("%w: the prepared transaction %s expired at %s; prepare it again", fault.ErrExpired, hashHex, ledger.FormatTime(p.ExpiresAt))
		}
		if err := x.Begin(ctx, body.Kind); err != nil {
			return err
		}
		if err := x.RefuseReassigning(ctx, body.ContractIDs...); err != nil {
			return err
		}
		cid, err := exec.Run(ctx, x, body)
		if err != nil {
			return err
		}
		res = SubmitResult{Kind: body.Kind, UpdateID: x.UpdateID(), ContractID: cid}
		stored, err := json.Marshal(res)
		if err != nil {
			return err
		}
		now := x.Now()
		x.AfterCommit(func(ctx context.Context) error {
			return store.MarkPreparedExecuted(ctx, tx, hashHex, string(stored), now)
		})
		return nil
	})
	if err != nil {
		return SubmitResult{}, fmt.Errorf("submit %s for %s: %w", body.Kind, party, err)
	}
	return res, nil
}

// setupProposals lists this validator's pending ExternalPartySetupProposals
// for user (all when empty).
func (s *Service) setupProposals(ctx context.Context, db bun.IDB, user coin.PartyID) ([]*store.Contract, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, db, ledger.TemplateExternalPartySetupProposal, user)
	if err != nil {
		return nil, err
	}
	op := s.l.Operator()
	out := []*store.Contract{}
	for i := range cs {
		var p setupProposalPayload
		if err := json.Unmarshal([]byte(cs[i].Payload), &p); err != nil {
			return nil, fmt.Errorf("decode %s: %w", cs[i].ContractID, err)
		}
		if p.Validator == op && (user == "" || p.User == user) {
			out = append(out, &cs[i])
		}
	}
	return out, nil
}
