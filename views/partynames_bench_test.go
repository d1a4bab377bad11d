package views

import (
	"fmt"
	"io"
	"testing"
	"time"
)

// BenchmarkHistoryPageNamed: the history page of 50 rows among 10
// counterparties, each with a name, rendered with its names: the names
// filled in from one lookup (here a map), then one render.
func BenchmarkHistoryPageNamed(b *testing.B) {
	m := History{Page: Page{Title: "History", User: "alice", CSRF: "tok"}}
	names := map[string]string{}
	for i := range 50 {
		p := fmt.Sprintf("party%d::1220%060d", i%10, i%10)
		names[p] = fmt.Sprintf("p%d.unverified.cns", i%10)
		m.Rows = append(m.Rows, HistoryRow{ID: int64(i), Label: "Sent", At: time.Unix(1_700_000_000, 0), Kind: "transfer",
			Counterparty: P(p), Amount: "-1.0000000000", Fees: "0.0000000000", Round: 7})
	}
	b.ReportAllocs()
	for b.Loop() {
		page := m
		page.Rows = append([]HistoryRow(nil), m.Rows...)
		refs := PartyRefs(&page)
		looked := make(map[string]string, len(refs))
		for _, r := range refs {
			looked[r.ID] = names[r.ID]
		}
		FillNames(&page, looked)
		if err := HistoryPage(page).Render(b.Context(), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
