package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
)

// TestLedgerAPIHoldingPlans: the Ledger API's reads of a party's unlocked
// holdings find spent holdings through the index on spent_offset, not by
// reading spent_holdings whole (it only grows: every spent holding of
// every party). Before, the condition sat outside the union and Postgres
// read the table in full for every active-contracts and updates request.
// Active contracts of given templates are found by index too.
func TestLedgerAPIHoldingPlans(t *testing.T) {
	ctx := context.Background()
	db := ledgertest.DB(t, store.Postgres)
	for _, s := range []string{
		"INSERT INTO spent_holdings SELECT 'h' || i, 'o' || i % 1000, 1, 0, 0, i, i + 1 FROM generate_series(1, 20000) i",
		// Archived contracts, and active ones of many templates.
		"INSERT INTO contracts SELECT 'c' || i, 'T' || i % 100, '{}', ' o' || i % 1000 || ' ', 's', i, CASE WHEN i % 10 > 0 THEN i + 1 END, now() FROM generate_series(1, 20000) i",
		"ANALYZE",
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	for name, q := range store.LedgerAPIQueries(db) {
		rows, err := db.QueryContext(ctx, "EXPLAIN (COSTS OFF) "+q)
		if err != nil {
			t.Fatal(err)
		}
		var plan strings.Builder
		for rows.Next() {
			var l string
			if err := rows.Scan(&l); err != nil {
				t.Fatal(err)
			}
			plan.WriteString(l + "\n")
		}
		rows.Close()
		if name == "contracts at" {
			if strings.Contains(plan.String(), "Seq Scan on contracts") {
				t.Errorf("%s: reads contracts whole:\n%s", name, plan.String())
			}
		} else if strings.Contains(plan.String(), "Seq Scan on spent_holdings") || !strings.Contains(plan.String(), "spent_holdings_offset") {
			t.Errorf("%s: spent holdings not found by spent_offset:\n%s", name, plan.String())
		}
	}
}
