// Package devnet owns a development network's tools on the core's Dev
// powers (the restore gate, the ledger's memory read again, the network
// made anew): restore and reset, which replace the state with the gate
// closed (replace.go), the faucet (Tap, TapCoin) and
// minting outside it (Mint, MintBulk, SeedRewardCoupons), on the core's
// Tx verbs, time jumps (Advance: so many rounds or until a time, with
// the workflows' automations after),
// snapshots (the whole network saved under a name, restored later),
// scenarios (a network's state as a file that Seed creates all of or
// nothing of and Dump writes), and the rule of impersonation (which admin
// may act as which party; the core records it with impersonation.ActingAs).
// Every Service method refuses (fault.ErrDisabled) unless the ledger
// runs a development network.
package devnet

import (
	"context"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/featured"
)

// Service is the development network's tools of one ledger.
type Service struct {
	l *ledger.Ledger
	// dg seeds and dumps the parties' delegations.
	dg *delegations.Service
	// feat seeds the parties' featured app rights.
	feat *featured.Service
	// afterAdvance are the workflows' automations a time jump runs.
	afterAdvance []func(context.Context) error
	// advanceHook, when set (tests), is called between the pieces of a
	// time jump with the round reached.
	advanceHook func(coin.Round)
	// maxSnapshots replaces MaxSnapshots when not zero (tests).
	maxSnapshots int
}

// New builds l's development network tools. afterAdvance are the steps a
// time jump runs once after the rounds it opened, in order: the
// workflows' automations (workflows.New passes the subscriptions').
func New(l *ledger.Ledger, afterAdvance ...func(context.Context) error) *Service {
	return &Service{l: l, dg: delegations.New(l), feat: featured.New(l), afterAdvance: afterAdvance}
}
