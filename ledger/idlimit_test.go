package ledger_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestOneIDLimit: a client-chosen id is taken up to 255 bytes, Canton's
// LedgerString limit, and refused above it with the limit in words, as
// the Ledger API refuses a commandId. Before, the ledger took 280.
func TestOneIDLimit(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		p := ledgertest.Party(t, l)
		if _, err := devnet.Tap(t.Context(), l, p, coin.MustParse("1"), strings.Repeat("c", 255)); err != nil {
			t.Errorf("255-byte command id refused: %v", err)
		}
		_, err := devnet.Tap(t.Context(), l, p, coin.MustParse("1"), strings.Repeat("c", 256))
		var ve *fault.ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), "at most 255 bytes") {
			t.Errorf("256-byte command id: %v, want a refusal saying at most 255 bytes", err)
		}
	})
}
