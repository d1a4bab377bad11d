package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
)

const testNS = "::1220" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// TestStakeholderMatchIsExact: a party sees only contracts it is a
// stakeholder of, by the whole party ID. Hints may hold a space, '_' and
// either case: with the old " a b " lists searched by LIKE, "alice" saw
// "john alice"'s contract, "a_ice" saw alice's on both engines and
// "Alice" on SQLite, whose LIKE ignores case.
func TestStakeholderMatchIsExact(t *testing.T) {
	alice, john := coin.PartyID("alice"+testNS), coin.PartyID("john alice"+testNS)
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			ctx := context.Background()
			db := ledgertest.DB(t, e)
			for i, p := range []coin.PartyID{alice, john} {
				c := &store.Contract{ContractID: coin.NewContractID(), TemplateID: "T:M:T", Payload: "{}",
					Stakeholders: store.PartyList([]coin.PartyID{p}), CreatedOffset: int64(i + 1), CreatedAt: time.Now()}
				if _, err := db.NewInsert().Model(c).Exec(ctx); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range []coin.PartyID{alice, john, "a_ice" + testNS, "Alice" + testNS, "%" + testNS, "alic%" + testNS, "john" + testNS} {
				cs, err := store.ActiveContractsByTemplate(ctx, db, "T:M:T", p)
				if err != nil {
					t.Fatal(err)
				}
				offs, err := store.EventOffsets(ctx, db, store.ContractQuery{Parties: []coin.PartyID{p}, Upto: 10, Limit: 10}, false, nil)
				if err != nil {
					t.Fatal(err)
				}
				want := 0
				if p == alice || p == john {
					want = 1
				}
				if len(cs) != want || len(offs) != want {
					t.Errorf("%q sees %d contracts and %d offsets, want %d", p.Hint(), len(cs), len(offs), want)
				}
				if want == 1 && (store.ParsePartyList(cs[0].Stakeholders)[0] != p || !store.PartyListHas(cs[0].Stakeholders, p)) {
					t.Errorf("%q's contract lists %q", p.Hint(), cs[0].Stakeholders)
				}
			}
		})
	}
}

// TestMigrationPartyLists: migration 0435 rewrites the old " a b "
// stakeholder lists as ",a,b,", splitting only after a whole party ID.
func TestMigrationPartyLists(t *testing.T) {
	bob := "bob" + testNS
	dso := "DSO" + testNS[:len(testNS)-1] + "f"
	cases := map[string][2]string{
		"00a": {" john alice" + testNS + " " + bob + " ", ",john alice" + testNS + "," + bob + ","},
		"00b": {" " + bob + " ", "," + bob + ","},
		"00c": {" " + dso + " a b c" + testNS + " " + bob + " ", "," + dso + ",a b c" + testNS + "," + bob + ","},
		"00d": {"  ", ","},
	}
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			ctx := context.Background()
			db := migratedUpTo(t, e, "0430")
			for id, c := range cases {
				if _, err := db.ExecContext(ctx, `INSERT INTO contracts (contract_id, template_id, payload, stakeholders, synchronizer_id, created_offset, created_at)
					VALUES (?, 'T:M:T', '{}', ?, 's', 1, ?)`, id, c[0], time.Now()); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			for id, c := range cases {
				var got string
				if err := db.NewSelect().Table("contracts").Column("stakeholders").Where("contract_id = ?", id).Scan(ctx, &got); err != nil {
					t.Fatal(err)
				}
				if got != c[1] {
					t.Errorf("%s: %q became %q, want %q", id, c[0], got, c[1])
				}
			}
		})
	}
}
