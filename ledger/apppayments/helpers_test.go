package apppayments_test

import (
	"testing"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/apppayments"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }

// pays is l's app payments (the service holds nothing but l).
func pays(l *ledger.Ledger) *apppayments.Service { return apppayments.New(l) }
