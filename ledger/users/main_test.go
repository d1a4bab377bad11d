package users_test

import (
	"testing"

	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }
