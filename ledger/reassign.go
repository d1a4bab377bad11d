package ledger

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// What the token-standard registry's reads (ledger/registry) share with
// the core's own moves: the rule of how a transfer settles, which
// contracts a move on an instruction uses, and contracts being reassigned
// between synchronizers, which every path refuses alike.

// ErrReassigning is returned when a contract that must be disclosed is
// being reassigned between synchronizers; the client retries later.
var ErrReassigning = fmt.Errorf("%w: contract is being reassigned", fault.ErrConflict)

// Uses lists the contracts a move on the instruction ti uses, for the
// registry's choice context and the wallet's move alike: the instruction
// and, while its lock holds, the locked holding, AmuletRules and the open
// round round (the context's expire-lock).
func (in Instructions) Uses(ti *store.TransferInstruction, locked bool, round coin.ContractID) []coin.ContractID {
	if !locked {
		return []coin.ContractID{ti.ContractID}
	}
	return []coin.ContractID{ti.ContractID, ti.LockedHoldingCID, in.l.rulesCID, round}
}

// Reassignments are the core's view of contracts being reassigned between
// synchronizers (ledger/reassign begins and completes them): the check
// every command makes that none of the contracts it uses is moving.
type Reassignments struct{ l *Ledger }

// Reassignments returns l's reassignment checks.
func (l *Ledger) Reassignments() Reassignments { return Reassignments{l} }

// refuse is the one check that none of the contracts a command
// is about to use is being reassigned between synchronizers: the
// registry's choice contexts and transfer factory, the wallet's moves on
// transfer instructions and offers, and external parties' submissions all
// refuse such a contract alike, with ErrReassigning (409), for the client
// to retry once the reassignment completes. Like a one-step send's
// (refuseSend) it reads only while a reassignment may be running
// (Ledger.reassigning): a network that never reassigns, a development
// network's tool, pays nothing for it on every factory answer.
func (re Reassignments) refuse(ctx context.Context, db bun.IDB, ids ...coin.ContractID) error {
	if re.l.reassigning.Load() <= 0 || len(ids) == 0 {
		return nil
	}
	rs, err := store.ReassignmentsOf(ctx, db, ids)
	if err != nil {
		return err
	}
	if len(rs) > 0 {
		return fmt.Errorf("%w: contract %s is being reassigned from synchronizer %s to %s; retry when the reassignment completes",
			ErrReassigning, rs[0].ContractID, rs[0].Source, rs[0].Target)
	}
	return nil
}

// TransferKind says how a token-standard transfer will settle.
type TransferKind string

// The transfer kinds of the token standard's transfer factory.
const (
	TransferSelf   TransferKind = "self"
	TransferDirect TransferKind = "direct"
	TransferOffer  TransferKind = "offer"
)

// Route is the one rule for how a token-standard transfer from sender to
// receiver settles (its kind and, when direct, through which preapproval), for the transfer factory's answer and the
// transfer itself alike: self for a self-transfer, direct (in one step,
// through the returned preapproval) when the receiver has a valid transfer
// preapproval, otherwise offer (a transfer instruction the receiver
// accepts).
func (in Instructions) Route(ctx context.Context, db bun.IDB, sender, receiver coin.PartyID) (TransferKind, *store.TransferPreapproval, error) {
	if sender == receiver {
		return TransferSelf, nil, nil
	}
	p, err := in.l.Preapprovals().Valid(ctx, db, receiver)
	switch {
	case fault.IsValidation(err):
		return TransferOffer, nil, nil
	case err != nil:
		return "", nil, err
	}
	return TransferDirect, p, nil
}

// refuseSend is the reassignment check of a one-step send to
// receiver: its preapproval, AmuletRules and the round in use. It reads
// only while a reassignment may be running (Ledger.reassigning).
func (re Reassignments) refuseSend(ctx context.Context, receiver coin.PartyID) error {
	l := re.l
	if l.reassigning.Load() <= 0 {
		return nil
	}
	ids := []coin.ContractID{l.rulesCID}
	if p, err := store.LiveTransferPreapproval(ctx, l.db, receiver); err == nil {
		ids = append(ids, p.ContractID)
	}
	if r, err := l.Rounds().usableRound(ctx, l.db); err == nil {
		ids = append(ids, r.ContractID)
	}
	return re.refuse(ctx, l.db, ids...)
}
