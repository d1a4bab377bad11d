package external

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
)

// The prepared transactions' kinds and their encoding (signing.go):
// Prepare stores what an external party is to sign, Submit
// (prepared.go) verifies and executes it through its kind's Executor.

// DefaultPreparedTTL is how long a prepared transaction may be submitted
// when ledger.Config.PreparedTTL is zero.
const DefaultPreparedTTL = 10 * time.Minute

// preparedVersion versions the prepared transaction encoding (signing.go).
const preparedVersion = 1

// Prepared transaction kinds of this package; another workflow adds its
// own to New (ledger/delegations' minting delegation proposal).
const (
	// KindExternalTransfer moves coin from the external party to any party
	// in one step (a plain transfer; no preapproval involved).
	KindExternalTransfer = "external-party/transfer"
	// KindSetupProposalAccept accepts an ExternalPartySetupProposal: it
	// archives the proposal and creates the party's TransferPreapproval.
	KindSetupProposalAccept = "external-party/setup-proposal/accept"
	// KindTransferPreapprovalSend is a one-step transfer through the
	// receiver's preapproval, ordered by the sender's TransferCommandCounter.
	KindTransferPreapprovalSend = "external-party/transfer-preapproval/send"
)

// PreparedBody is what a prepared transaction encodes: everything its
// execution depends on, so the signature covers it all. Field order is
// the canonical order of the encoding.
type PreparedBody struct {
	Version        int               `json:"version"`
	Kind           string            `json:"kind"`
	Party          coin.PartyID      `json:"party"`
	Nonce          string            `json:"nonce"`
	CreatedAt      string            `json:"created_at"`
	ExpiresAt      string            `json:"expires_at"`
	SynchronizerID string            `json:"synchronizer_id"`
	ContractIDs    []coin.ContractID `json:"contract_ids"`
	Args           json.RawMessage   `json:"args"`
}

// Prepared is a transaction ready for the external party to sign.
type Prepared struct {
	// Transaction is base64 of the encoded PreparedBody.
	Transaction string
	// TxHash is the hex hash to sign (PreparedTxHash of the bytes).
	TxHash    string
	ExpiresAt time.Time
	// TransferCommandIDPrefix, for a preapproval send, is the contract-id
	// prefix of the TransferCommand its execution creates.
	TransferCommandIDPrefix string
}

// Submission is a signed prepared transaction, the spec's
// ExternalPartySubmission.
type Submission struct {
	Party        coin.PartyID
	Transaction  string
	SignedTxHash string
	PublicKey    string
	// Kind, when set, is the only kind this submission may execute, so an
	// endpoint for one kind (submit-send, say) refuses another's transaction.
	Kind string
}

// SubmitResult is what executing a prepared transaction produced. A
// replayed submission answers the stored result with Replayed set.
type SubmitResult struct {
	Kind       string          `json:"kind"`
	UpdateID   string          `json:"update_id"`
	ContractID coin.ContractID `json:"contract_id,omitempty"`
	Replayed   bool            `json:"-"`
}

// Executor is how a prepared kind executes in Submit: Parties are the
// parties to lock before the change, Before (when not nil) what must
// commit separately first (the devnet fee tap), Run the effect inside the
// begun change.
type Executor struct {
	Parties func(l *ledger.Ledger, b *PreparedBody) []coin.PartyID
	Before  func(ctx context.Context, l *ledger.Ledger, b *PreparedBody) error
	Run     func(ctx context.Context, x *ledger.Tx, b *PreparedBody) (coin.ContractID, error)
}

// Kind is a prepared kind another workflow passes to New: its name and
// how it executes.
type Kind struct {
	Name string
	Executor
}

// ownKinds are this package's prepared kinds: adding one is an entry
// here plus its Prepare wrapper.
func (s *Service) ownKinds() map[string]Executor {
	return map[string]Executor{
		KindExternalTransfer:        {Parties: SenderOnly, Run: runExternalTransfer},
		KindSetupProposalAccept:     {Parties: senderAndOperator, Run: runSetupProposalAccept, Before: fundSetupProposalAccept},
		KindTransferPreapprovalSend: {Parties: SenderOnly, Run: s.runTransferPreapprovalSend},
	}
}

// SenderOnly locks the party that signs, the one a kind moves coin of.
func SenderOnly(_ *ledger.Ledger, b *PreparedBody) []coin.PartyID { return []coin.PartyID{b.Party} }

func senderAndOperator(l *ledger.Ledger, b *PreparedBody) []coin.PartyID {
	return []coin.PartyID{b.Party, l.Operator()}
}

// PreparedTTL is how long a prepared transaction may be executed.
func (s *Service) PreparedTTL() time.Duration {
	if ttl := s.l.PreparedTTL(); ttl > 0 {
		return ttl
	}
	return DefaultPreparedTTL
}

// Prepare encodes and stores a transaction of kind for the external party
// (this package prepares its kinds; ledger/delegations its own). Submit
// executes it. expiresAt, when set and earlier than the default lifetime,
// shortens it.
func (s *Service) Prepare(ctx context.Context, party coin.PartyID, kind string, contractIDs []coin.ContractID, args any, expiresAt time.Time) (Prepared, error) {
	l := s.l
	if _, ok := s.kinds[kind]; !ok {
		return Prepared{}, fmt.Errorf("prepare: unknown kind %q", kind)
	}
	if _, err := s.ExternalPartyKey(ctx, party); err != nil {
		return Prepared{}, err
	}
	now := l.Now()
	exp := now.Add(s.PreparedTTL())
	if !expiresAt.IsZero() {
		if err := bounds.CheckExpiry("expires_at", expiresAt, now); err != nil {
			return Prepared{}, err
		}
		if expiresAt.Before(exp) {
			exp = expiresAt.UTC()
		}
	}
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		return Prepared{}, err
	}
	if contractIDs == nil {
		contractIDs = []coin.ContractID{}
	}
	rawArgs, err := json.Marshal(args)
	if err != nil {
		return Prepared{}, fmt.Errorf("prepare %s: args: %w", kind, err)
	}
	raw, err := json.Marshal(PreparedBody{
		Version: preparedVersion, Kind: kind, Party: party, Nonce: hex.EncodeToString(nonce),
		CreatedAt: ledger.FormatTime(now), ExpiresAt: ledger.FormatTime(exp), SynchronizerID: l.SynchronizerID(),
		ContractIDs: contractIDs, Args: rawArgs,
	})
	if err != nil {
		return Prepared{}, fmt.Errorf("prepare %s: %w", kind, err)
	}
	hash := hex.EncodeToString(PreparedTxHash(raw))
	err = store.InsertPreparedTx(ctx, l.DB(), &store.PreparedTx{
		TxHash: hash, Party: party, Kind: kind, Body: string(raw), Status: store.PreparedPending, CreatedAt: now, ExpiresAt: exp,
	})
	if err != nil {
		return Prepared{}, fmt.Errorf("prepare %s for %s: %w", kind, party, err)
	}
	return Prepared{Transaction: base64.StdEncoding.EncodeToString(raw), TxHash: hash, ExpiresAt: exp}, nil
}

// DecodePrepared decodes a base64 prepared transaction, strictly: unknown
// fields or another version are refused.
func DecodePrepared(transaction string) ([]byte, *PreparedBody, error) {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(transaction))
	if err != nil {
		return nil, nil, fault.Invalid("transaction", "must be base64: %v", err)
	}
	var b PreparedBody
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return nil, nil, fault.Invalid("transaction", "is not a prepared transaction: %v", err)
	}
	if b.Version != preparedVersion {
		return nil, nil, fault.Invalid("transaction", "has version %d, want %d", b.Version, preparedVersion)
	}
	return raw, &b, nil
}

// DecodeArgs decodes a kind's args strictly.
func DecodeArgs(b *PreparedBody, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b.Args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fault.Invalid("transaction", "has malformed %s args: %v", b.Kind, err)
	}
	return nil
}

// externalTransferArgs are the args of KindExternalTransfer.
type externalTransferArgs struct {
	Receiver    coin.PartyID `json:"receiver"`
	Amount      coin.Amount  `json:"amount"`
	Description string       `json:"description"`
}

func runExternalTransfer(ctx context.Context, x *ledger.Tx, b *PreparedBody) (coin.ContractID, error) {
	var a externalTransferArgs
	if err := DecodeArgs(b, &a); err != nil {
		return "", err
	}
	if err := x.UsingRules(ctx); err != nil {
		return "", err
	}
	r, err := x.Transfer(ctx, b.Party, []ledger.Output{{Receiver: a.Receiver, Amount: a.Amount}})
	if err != nil {
		return "", err
	}
	x.RecordTransfer(b.Party, a.Receiver, a.Amount, r, "ExternalPartyTransfer", a.Description)
	if len(r.Outputs) > 0 {
		return r.Outputs[0], nil
	}
	return "", nil
}
