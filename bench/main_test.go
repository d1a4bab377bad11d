// Package bench holds the benchmarks `make bench` runs, each against a real
// database from ledgertest.
package bench

import (
	"testing"

	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }
