package ledger_test

import (
	"slices"
	"testing"

	"github.com/ccwallet/ccwallet/ledger"
)

// TestHistoryKinds: the filter offers the row kinds in their order, and
// every kind has its words; an unknown kind shows as it is.
func TestHistoryKinds(t *testing.T) {
	want := []ledger.HistoryKind{ledger.HistoryTransfer, ledger.HistoryBalanceChange, ledger.HistoryNotification}
	if got := ledger.HistoryKinds(); !slices.Equal(got, want) {
		t.Errorf("HistoryKinds() = %v, want %v", got, want)
	}
	for k, words := range map[ledger.HistoryKind]string{
		ledger.HistoryTransfer: "Transfer", ledger.HistoryBalanceChange: "Balance change",
		ledger.HistoryNotification: "Notification", ledger.HistoryReward: "Reward", "other": "other",
	} {
		if got := k.Words(); got != words {
			t.Errorf("%q.Words() = %q, want %q", k, got, words)
		}
	}
}
