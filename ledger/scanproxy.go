package ledger

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// The reads behind the validator's scan-proxy endpoints (scan-proxy.yaml):
// the contracts a client needs to build its own transactions, as scan
// serves them. The payloads are the ones the ledger stored when it created
// the contracts, the same the registry discloses.

// TemplateTransferCommand is an external sender's one-time delegation to
// send through the receiver's preapproval (Splice.ExternalPartyAmuletRules).
const TemplateTransferCommand = "#splice-amulet:Splice.ExternalPartyAmuletRules:TransferCommand"

// TransferCommandWindow is how far back transfer-command/status looks, as
// scan does ("created in the last 24h").
const TransferCommandWindow = 24 * time.Hour

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

// AmuletRules is the network's AmuletRules contract.
func (l *Ledger) AmuletRules(ctx context.Context) (Contract, error) {
	c, err := store.ContractByID(ctx, l.db, l.rulesCID)
	if err != nil {
		return Contract{}, err
	}
	return l.contractView(c), nil
}

// OpenRoundContracts are the OpenMiningRound contracts of the open rounds
// (OpenRounds decides which), oldest first.
func (l *Ledger) OpenRoundContracts(ctx context.Context) ([]Contract, error) {
	rs, err := l.OpenRounds(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Contract, 0, len(rs))
	for _, r := range rs {
		c, err := store.ContractByID(ctx, l.db, r.ContractID)
		if err != nil {
			return nil, err
		}
		out = append(out, l.contractView(c))
	}
	return out, nil
}

// FeaturedAppRight is provider's FeaturedAppRight contract; ErrNotFound
// when provider is not featured.
func (l *Ledger) FeaturedAppRight(ctx context.Context, provider coin.PartyID) (Contract, error) {
	cid, err := l.featuredAppRightOf(ctx, provider)
	if err != nil {
		return Contract{}, err
	}
	c, err := store.ContractByID(ctx, l.db, cid)
	if err != nil {
		return Contract{}, err
	}
	return l.contractView(c), nil
}

// TransferCommandStatus is a TransferCommand and what became of it.
type TransferCommandStatus struct {
	Contract Contract
	// Status is "created" (waiting to be executed) or "sent" (done).
	// Ours execute in the transaction that creates them, so a command
	// that failed left nothing behind and is never listed.
	Status string
}

// TransferCommands lists sender's TransferCommands with nonce created in
// the last TransferCommandWindow; ErrNotFound when there are none.
func (l *Ledger) TransferCommands(ctx context.Context, sender coin.PartyID, nonce int64) ([]TransferCommandStatus, error) {
	if nonce < 0 {
		return nil, invalid("nonce", "must not be negative")
	}
	want := strconv.FormatInt(nonce, 10)
	// The nonce pre-filter keeps the rows read to this nonce's commands.
	cs, err := store.ContractsByTemplateSince(ctx, l.db, TemplateTransferCommand, sender, l.now().Add(-TransferCommandWindow), `"nonce":"`+want+`"`)
	if err != nil {
		return nil, err
	}
	var out []TransferCommandStatus
	for i := range cs {
		var p transferCommandPayload
		if err := json.Unmarshal([]byte(cs[i].Payload), &p); err != nil {
			return nil, fmt.Errorf("decode %s: %w", cs[i].ContractID, err)
		}
		if p.Sender != sender || p.Nonce != want {
			continue
		}
		st := "created"
		if cs[i].ArchivedOffset != nil {
			st = "sent"
		}
		out = append(out, TransferCommandStatus{Contract: l.contractView(&cs[i]), Status: st})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: couldn't find transfer command for sender %s with nonce %d created in the last 24h", ErrNotFound, sender, nonce)
	}
	return out, nil
}

// recordTransferCommand creates the TransferCommand of an external send
// and archives it in the same transaction, as the DSO's delegate
// executing TransferCommand_Send would: the send is done when submitted,
// and transfer-command/status reports it sent.
func (t *txn) recordTransferCommand(b *PreparedBody, a preapprovalSendArgs) {
	var desc *string
	if a.Description != "" {
		desc = &a.Description
	}
	cid := transferCommandID(b)
	t.createWithID(cid, TemplateTransferCommand, transferCommandPayload{
		DSO: t.l.dso, Sender: b.Party, Receiver: a.Receiver, Delegate: t.l.operator, Amount: a.Amount,
		ExpiresAt: a.ExpiresAt, Nonce: strconv.FormatInt(a.Nonce, 10), Description: desc,
	}, b.Party, t.l.dso, t.l.operator)
	t.archive(cid)
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
