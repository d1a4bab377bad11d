// Package devnet owns a development network's tools on the core's Dev
// powers (mint, reset, the restore gate): snapshots (the whole network
// saved under a name, restored later), and scenarios (a network's state
// as a file that Seed creates all of or nothing of and Dump writes).
// Every Service method refuses (ledger.ErrDisabled) unless the ledger
// runs a development network.
package devnet

import "github.com/ccwallet/ccwallet/ledger"

// Service is the development network's tools of one ledger.
type Service struct {
	l *ledger.Ledger
	// maxSnapshots replaces MaxSnapshots when not zero (tests).
	maxSnapshots int
}

// New builds l's development network tools.
func New(l *ledger.Ledger) *Service { return &Service{l: l} }
