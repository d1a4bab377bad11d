package names_test

import (
	"sync"
	"testing"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/workflows"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }

var (
	setsMu sync.Mutex
	sets   = map[*ledger.Ledger]*workflows.Set{}
)

// set is l's workflows, built on first use, as cmd builds them once.
func set(l *ledger.Ledger) *workflows.Set {
	setsMu.Lock()
	defer setsMu.Unlock()
	if sets[l] == nil {
		sets[l] = workflows.New(l)
	}
	return sets[l]
}
