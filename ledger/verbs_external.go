package ledger

import (
	"context"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// What ledger/external (external parties' prepared transactions: a
// transfer, a setup proposal's acceptance, a send through a preapproval)
// needs of the core besides Tx's other verbs. Each is one rule of the
// core that any workflow's change may run.

// Templates of the external parties' contracts, which the core's
// Templates lists and the Ledger API's reads show (ledger/external
// creates them, ledger/scan reads the TransferCommands back).
const (
	// TemplateExternalPartySetupProposal is the validator's offer to
	// provide an external party's TransferPreapproval.
	TemplateExternalPartySetupProposal = "#splice-amulet:Splice.AmuletRules:ExternalPartySetupProposal"
	// TemplateTransferCommandCounter holds an external sender's next nonce.
	TemplateTransferCommandCounter = "#splice-amulet:Splice.ExternalPartyAmuletRules:TransferCommandCounter"
	// TemplateTransferCommand is an external sender's one-time delegation
	// to send through the receiver's preapproval.
	TemplateTransferCommand = "#splice-amulet:Splice.ExternalPartyAmuletRules:TransferCommand"
)

// PartyKindExternal marks a party whose signing key lives off the node
// (ledger/external creates them and checks their keys; the core leaves
// their wallets' automations and rewards to their own signatures).
const PartyKindExternal = "external"

// PartyRow is party's row (its kind and, for an external party, its
// key); a party the ledger does not know is fault.ErrNotFound. The Ledger API
// asks it on every external submission, so a known party's row is
// remembered: a party's row is only ever inserted, never changed or
// deleted (a restore, which replaces the table, clears the memory).
func (l *Ledger) PartyRow(ctx context.Context, party coin.PartyID) (*store.Party, error) {
	if p, ok := l.partyRows.Load(party); ok {
		return p.(*store.Party), nil
	}
	p, err := store.PartyByID(ctx, l.db, party)
	if err != nil {
		return nil, fmt.Errorf("party %s: %w", party, err)
	}
	l.partyRows.Store(party, p)
	return p, nil
}

// RecordTransfer writes the history of a transfer r (Transfer's) of
// amount from sender to receiver for both sides, as subtype.
func (x *Tx) RecordTransfer(sender, receiver coin.PartyID, amount coin.Amount, r *TransferResult, subtype, description string) {
	x.t().recordTransfer(sender, receiver, amount, r, subtype, description)
}

// NewPreapproval is the one rule creating receiver's transfer preapproval,
// provided and paid by provider until expires: when receiver has a valid
// one it returns it with exists set and changes nothing. Callers lock
// receiver and provider.
func (x *Tx) NewPreapproval(ctx context.Context, receiver, provider coin.PartyID, expires time.Time) (cid coin.ContractID, exists bool, err error) {
	return x.t().newPreapproval(ctx, receiver, provider, expires)
}

// SendPreapproved is the one rule of TransferPreapproval_Send: amount
// from sender through receiver's valid preapproval (else a validation
// error), its history and the featured provider's reward. Callers lock
// sender.
func (x *Tx) SendPreapproved(ctx context.Context, sender, receiver coin.PartyID, amount coin.Amount, description string) (*TransferResult, error) {
	return x.t().sendPreapproved(ctx, sender, receiver, amount, description)
}

// PreparedTTL is Config.PreparedTTL: how long an external party's
// prepared transaction may be submitted (zero: ledger/external's default).
func (l *Ledger) PreparedTTL() time.Duration { return l.cfg.PreparedTTL }
