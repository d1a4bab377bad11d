package ui_test

import (
	"testing"

	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// The web wallet's tests drive its pages through the whole app port
// (handlers/handlerstest) over real ledgers on both engines.
func TestMain(m *testing.M) { ledgertest.Main(m) }
