package featured_test

import (
	"testing"

	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }

var (
	forEachEngine = ledgertest.ForEachEngine
	mintMany      = ledgertest.MintMany
	delegate      = ledgertest.Delegate
)
