package ledger

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/ccwallet/ccwallet/coin"
)

// The TransferCommand an external party's preapproval send creates and
// archives (external_preapprovals.go); ledger/scan reads them back for
// transfer-command/status.

// TemplateTransferCommand is an external sender's one-time delegation to
// send through the receiver's preapproval (Splice.ExternalPartyAmuletRules).
const TemplateTransferCommand = "#splice-amulet:Splice.ExternalPartyAmuletRules:TransferCommand"

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

// TransferCommandIDPrefix is transferCommandID without its suffix, the
// part a Canton contract id has before the transaction commits: what
// prepare-send tells the client to look for in transfer-command/status.
func TransferCommandIDPrefix(b *PreparedBody) string {
	return string(transferCommandID(b))[:len("00")+64]
}
