package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
)

// TestStakeholderMatchIsExact: a party sees only contracts it is a
// stakeholder of, by the whole party ID. Hints may hold '_' and either
// case, so a match by pattern let "a_ice::ns" see alice's contracts on
// both engines and "Alice::ns" see them on SQLite, whose LIKE ignores
// case.
func TestStakeholderMatchIsExact(t *testing.T) {
	const ns = "::1220" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	alice := coin.PartyID("alice" + ns)
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			ctx := context.Background()
			db := ledgertest.DB(t, e)
			c := &store.Contract{ContractID: coin.NewContractID(), TemplateID: "T:M:T", Payload: "{}",
				Stakeholders: " " + string(alice) + " ", CreatedOffset: 1, CreatedAt: time.Now()}
			if _, err := db.NewInsert().Model(c).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			for _, p := range []coin.PartyID{alice, "a_ice" + ns, "Alice" + ns, "%" + ns, "alic%" + ns} {
				cs, err := store.ActiveContractsByTemplate(ctx, db, "T:M:T", p)
				if err != nil {
					t.Fatal(err)
				}
				offs, err := store.EventOffsets(ctx, db, store.ContractQuery{Parties: []coin.PartyID{p}, Upto: 10, Limit: 10}, false, nil)
				if err != nil {
					t.Fatal(err)
				}
				want := 0
				if p == alice {
					want = 1
				}
				if len(cs) != want || len(offs) != want {
					t.Errorf("%s sees %d contracts and %d offsets, want %d", p.Hint(), len(cs), len(offs), want)
				}
			}
		})
	}
}
