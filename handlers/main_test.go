package handlers_test

import (
	"testing"

	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// The tests of the app port's wiring (routing, the gates and the
// middleware around both surfaces); the JSON APIs' tests are in
// handlers/api, the web wallet's in handlers/ui.
func TestMain(m *testing.M) { ledgertest.Main(m) }
