package api_test

import (
	"testing"

	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// The JSON APIs' tests drive the whole app port (handlers.New(...).Routes)
// through httptest over real ledgers, with every exchange of the specs'
// operations checked against the public specs (handlers/handlerstest).
func TestMain(m *testing.M) { ledgertest.Main(m) }
