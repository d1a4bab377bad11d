package ledger

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
	"github.com/ccwallet/ccwallet/store"
)

// DefaultPreparedTTL is how long a prepared transaction may be submitted
// when Config.PreparedTTL is zero.
const DefaultPreparedTTL = 10 * time.Minute

// preparedVersion versions the prepared transaction encoding (signing.go).
const preparedVersion = 1

// Prepared transaction kinds. Each has an executor in executors.
const (
	// KindExternalTransfer moves coin from the external party to any party
	// in one step (a plain transfer; no preapproval involved).
	KindExternalTransfer = "external-party/transfer"
	// KindMintingDelegationPropose creates a MintingDelegationProposal of
	// the external party naming the validator operator as delegate.
	KindMintingDelegationPropose = "minting-delegation/propose"
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

// executor runs one kind's effect inside the submitting ledger
// transaction. parties are locked before the transaction begins.
type executor struct {
	parties func(l *Ledger, b *PreparedBody) []coin.PartyID
	run     func(ctx context.Context, t *txn, b *PreparedBody) (coin.ContractID, error)
	// before, when set, runs after verification and before the submitting
	// transaction, for what must commit separately (the devnet fee tap).
	before func(ctx context.Context, l *Ledger, b *PreparedBody) error
}

// PreparedExecutor is how a prepared kind executes, for ledger/external's
// Submit: Parties are the parties to lock before the change, Before (when
// not nil) what must commit separately first, Run the effect inside the
// begun change.
type PreparedExecutor struct {
	Parties func(l *Ledger, b *PreparedBody) []coin.PartyID
	Before  func(ctx context.Context, l *Ledger, b *PreparedBody) error
	Run     func(ctx context.Context, x *Tx, b *PreparedBody) (coin.ContractID, error)
}

// PreparedExecutorOf is kind's executor; ok is false for an unknown kind.
func PreparedExecutorOf(kind string) (e PreparedExecutor, ok bool) {
	exec, ok := executors[kind]
	if !ok {
		return PreparedExecutor{}, false
	}
	run := exec.run
	return PreparedExecutor{Parties: exec.parties, Before: exec.before,
		Run: func(ctx context.Context, x *Tx, b *PreparedBody) (coin.ContractID, error) { return run(ctx, x.t(), b) }}, true
}

// executors is the registry of prepared kinds: adding a kind (the
// preapproval send, the setup-proposal acceptance) is one entry here plus
// its Prepare wrapper.
var executors = map[string]executor{
	KindExternalTransfer:         {parties: senderOnly, run: runExternalTransfer},
	KindMintingDelegationPropose: {parties: senderOnly, run: runMintingDelegationPropose},
	KindSetupProposalAccept:      {parties: senderAndOperator, run: runSetupProposalAccept, before: fundSetupProposalAccept},
	KindTransferPreapprovalSend:  {parties: senderOnly, run: runTransferPreapprovalSend},
}

func senderOnly(_ *Ledger, b *PreparedBody) []coin.PartyID { return []coin.PartyID{b.Party} }

func senderAndOperator(l *Ledger, b *PreparedBody) []coin.PartyID {
	return []coin.PartyID{b.Party, l.operator}
}

// PreparedTTLOf is how long l's prepared transactions may be executed.
func PreparedTTLOf(l *Ledger) time.Duration {
	if l.cfg.PreparedTTL > 0 {
		return l.cfg.PreparedTTL
	}
	return DefaultPreparedTTL
}

// Prepare encodes and stores a transaction of kind for an external party
// (ledger/external prepares each kind; Submit executes it). expiresAt,
// when set and earlier than the default lifetime, shortens it.
func Prepare(ctx context.Context, l *Ledger, party coin.PartyID, kind string, contractIDs []coin.ContractID, args any, expiresAt time.Time) (Prepared, error) {
	if _, ok := executors[kind]; !ok {
		return Prepared{}, fmt.Errorf("prepare: unknown kind %q", kind)
	}
	if _, err := ExternalKeyOf(ctx, l, party); err != nil {
		return Prepared{}, err
	}
	now := l.now()
	exp := now.Add(PreparedTTLOf(l))
	if !expiresAt.IsZero() {
		if err := checkExpiry("expires_at", expiresAt, now); err != nil {
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
	body := PreparedBody{
		Version: preparedVersion, Kind: kind, Party: party, Nonce: hex.EncodeToString(nonce),
		CreatedAt: FormatTime(now), ExpiresAt: FormatTime(exp), SynchronizerID: l.synchronizerID,
		ContractIDs: contractIDs, Args: json.RawMessage(mustJSON(args)),
	}
	raw := []byte(mustJSON(body))
	hash := hex.EncodeToString(PreparedTxHash(raw))
	err := store.InsertPreparedTx(ctx, l.db, &store.PreparedTx{
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
		return nil, nil, invalid("transaction", "must be base64: %v", err)
	}
	var b PreparedBody
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return nil, nil, invalid("transaction", "is not a prepared transaction: %v", err)
	}
	if b.Version != preparedVersion {
		return nil, nil, invalid("transaction", "has version %d, want %d", b.Version, preparedVersion)
	}
	return raw, &b, nil
}

// decodeArgs decodes a kind's args strictly.
func decodeArgs(b *PreparedBody, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b.Args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return invalid("transaction", "has malformed %s args: %v", b.Kind, err)
	}
	return nil
}

// ExternalTransferArgs are the args of KindExternalTransfer.
type ExternalTransferArgs = externalTransferArgs

type externalTransferArgs struct {
	Receiver    coin.PartyID `json:"receiver"`
	Amount      coin.Amount  `json:"amount"`
	Description string       `json:"description"`
}

func runExternalTransfer(ctx context.Context, t *txn, b *PreparedBody) (coin.ContractID, error) {
	var a externalTransferArgs
	if err := decodeArgs(b, &a); err != nil {
		return "", err
	}
	if err := t.usingRules(ctx); err != nil {
		return "", err
	}
	r, err := t.transfer(ctx, b.Party, []Output{{Receiver: a.Receiver, Amount: a.Amount}})
	if err != nil {
		return "", err
	}
	t.recordTransfer(b.Party, a.Receiver, a.Amount, r, "ExternalPartyTransfer", a.Description)
	if len(r.Outputs) > 0 {
		return r.Outputs[0], nil
	}
	return "", nil
}
