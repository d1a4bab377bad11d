package devnet_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/holdingsview"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/ccwallet/ccwallet/ledger/provider"
	"github.com/ccwallet/ccwallet/ledger/users"
)

// seedFile parses and seeds a scenario on l.
func seedFile(t *testing.T, l *ledger.Ledger, text string) devnet.SeedResult {
	t.Helper()
	sc, err := devnet.ParseScenario([]byte(text))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	res, err := devnet.New(l).Seed(context.Background(), sc, nil)
	if err != nil {
		t.Fatalf("seed: %v", err)
	}
	return res
}

func available(t *testing.T, l *ledger.Ledger, p coin.PartyID) coin.Amount {
	t.Helper()
	b, err := l.Balance(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return b.EffectiveUnlocked
}

// liveContracts counts the network's active contracts by template.
func liveContracts(t *testing.T, l *ledger.Ledger) map[string]int {
	t.Helper()
	var rows []struct {
		TemplateID string `bun:"template_id"`
		N          int    `bun:"n"`
	}
	err := l.DB().NewRaw("SELECT template_id, count(*) AS n FROM contracts WHERE archived_offset IS NULL GROUP BY template_id").
		Scan(context.Background(), &rows)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, r := range rows {
		out[r.TemplateID] = r.N
	}
	return out
}

// TestScenarioExamples: the scenarios in docs/scenarios seed on both
// engines and make what their comments say, so they cannot rot.
func TestScenarioExamples(t *testing.T) {
	read := func(t *testing.T, name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "docs", "scenarios", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		res := seedFile(t, l, read(t, "two-traders.yaml"))
		alice, bob := res.Parties["alice"], res.Parties["bob"]
		if got := available(t, l, alice); !got.Equal(coin.MustParse("1000")) {
			t.Errorf("alice has %s; want 1000", got)
		}
		if got := available(t, l, bob); !got.Equal(coin.MustParse("250")) {
			t.Errorf("bob has %s; want 250", got)
		}
		if _, err := provider.New(l).Preapproval(ctx, bob); err != nil {
			t.Errorf("bob's preapproval: %v", err)
		}
		o, err := pending.New(l).OfferStatus(ctx, alice, "invoice-17")
		if err != nil || o.Status != ledger.OfferCreated || !o.Amount.Equal(coin.MustParse("42.5")) || o.Receiver != bob {
			t.Errorf("alice's offer = %+v, %v", o, err)
		}
		ms, err := delegations.New(l).MergeDelegations(ctx, alice)
		if err != nil || len(ms) == 0 || ms[len(ms)-1].Status != delegations.MergeActive {
			t.Errorf("alice's merge delegations = %+v, %v", ms, err)
		}

		// The example in docs/devnet.md's Scenarios section, on a new
		// network.
		if err := ledgertest.Dev(t, l).Reset(ctx); err != nil {
			t.Fatal(err)
		}
		doc := read(t, "../devnet.md")
		doc = doc[strings.Index(doc, "## Scenarios"):]
		doc = doc[strings.Index(doc, "```yaml\n")+len("```yaml\n"):]
		res = seedFile(t, l, doc[:strings.Index(doc, "```")])
		if got := available(t, l, res.Parties["treasury"]); !got.Equal(coin.MustParse("5000")) {
			t.Errorf("the docs' treasury has %s; want 5000", got)
		}
		if err := ledgertest.Dev(t, l).Reset(ctx); err != nil {
			t.Fatal(err)
		}

		res = seedFile(t, l, read(t, "external-party.yaml"))
		treasury, carol := res.Parties["treasury"], res.Parties["carol"]
		if res.Keys["treasury"] == nil || len(res.Keys) != 1 {
			t.Fatalf("keys = %v; want treasury's", res.Keys)
		}
		if got := available(t, l, treasury); !got.Equal(coin.MustParse("5000")) {
			t.Errorf("treasury has %s available; want 5000 (the instruction's 125 minted and locked besides)", got)
		}
		if got := available(t, l, carol); !got.Equal(coin.MustParse("10")) {
			t.Errorf("carol has %s; want 10", got)
		}
		tis, err := pending.New(l).TransferInstructions(ctx, carol)
		if err != nil || len(tis) != 1 || tis[0].Sender != treasury || !tis[0].Amount.Equal(coin.MustParse("125")) {
			t.Errorf("carol's instructions = %+v, %v", tis, err)
		}
		ds, err := delegations.New(l).MintingDelegations(ctx, l.Operator())
		if err != nil || len(ds) != 1 || ds[0].Beneficiary != treasury || ds[0].MergeLimit != 10 {
			t.Errorf("minting delegations = %+v, %v", ds, err)
		}
		// The key written out is the party's: it signs for it.
		p, err := external.New(l).PrepareExternalTransfer(ctx, treasury, carol, coin.MustParse("1"), "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := external.New(l).Submit(ctx, ledgertest.Sign(t, treasury, res.Keys["treasury"], p)); err != nil {
			t.Errorf("a transfer signed with the seeded key: %v", err)
		}
	})
}

// roundTrip is a scenario with every kind of item.
const roundTrip = `
users:
  - name: alice
    holdings: ["70", "30.0000000001"]
    merge_delegation: true
    featured: true
  - name: bob
    balance: "5"
    preapproval: true
  - name: dave
parties:
  - name: shop
    balance: "12.5"
  - name: vault
    external: true
    holdings: ["1", "2", "3"]
    preapproval: true
    minting_delegation: {merge_limit: 7, expires_in: 100h}
offers:
  - {from: alice, to: bob, amount: "10", description: lunch, expires_in: 1h}
  - {from: bob, to: admin, amount: "1", tracking_id: t-2}
  - {from: vault, to: shop, amount: "1.5"}
instructions:
  - {from: shop, to: dave, amount: "2.25", description: refund}
  - {from: alice, to: vault, amount: "3", tracking_id: ti-1}
`

// TestScenarioDumpRoundTrip: seed a scenario, dump it, seed the dump on a
// fresh network: the two networks' users, parties, balances, holdings,
// contracts (counted by template) and dumps are the same.
func TestScenarioDumpRoundTrip(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			a, b := ledgertest.New(t, e), ledgertest.New(t, e)
			resA := seedFile(t, a, roundTrip)
			dumpA, err := devnet.New(a).Dump(ctx)
			if err != nil {
				t.Fatal(err)
			}
			text, err := dumpA.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			resB := seedFile(t, b, string(text))
			dumpB, err := devnet.New(b).Dump(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// External parties get new keys, so their IDs differ; the
			// names and everything else are the same.
			if !reflect.DeepEqual(dumpA, dumpB) {
				textB, _ := dumpB.Marshal()
				t.Errorf("dumps differ:\n%s\n---\n%s", text, textB)
			}
			if len(dumpA.Users) != 3 || len(dumpA.Parties) != 2 || len(dumpA.Offers) != 3 || len(dumpA.Instructions) != 2 {
				t.Errorf("dump holds %d users, %d parties, %d offers, %d instructions:\n%s",
					len(dumpA.Users), len(dumpA.Parties), len(dumpA.Offers), len(dumpA.Instructions), text)
			}
			for _, name := range []string{"alice", "bob", "dave", "shop", "vault"} {
				ha, _, err := holdingsview.New(a).List(ctx, resA.Parties[name])
				if err != nil {
					t.Fatal(err)
				}
				hb, _, err := holdingsview.New(b).List(ctx, resB.Parties[name])
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(holdingAmounts(ha)) != fmt.Sprint(holdingAmounts(hb)) {
					t.Errorf("%s's holdings: %v, then %v", name, holdingAmounts(ha), holdingAmounts(hb))
				}
			}
			// The balance is what is available; the instruction's 3 and
			// its fee reserve for a day are minted and locked besides.
			ha, _, _ := holdingsview.New(b).List(ctx, resB.Parties["alice"])
			lock := coin.MustParse("3").Add(b.Rules().TransferLockReserve(coin.MustParse("3"), b.Rules().InitialPriceUSD, 24*time.Hour))
			if got, want := fmt.Sprint(holdingAmounts(ha)), "[70.0000000000 30.0000000001 "+lock.String()+" locked]"; got != want {
				t.Errorf("alice's holdings = %s; want %s", got, want)
			}
			if ca, cb := liveContracts(t, a), liveContracts(t, b); !reflect.DeepEqual(ca, cb) {
				t.Errorf("live contracts by template:\n%v\n%v", ca, cb)
			}
		})
	}
}

// holdingAmounts lists holdings as "amount" or "amount locked", largest
// first (Holdings' order).
func holdingAmounts(hs []ledger.HoldingView) []string {
	out := make([]string, 0, len(hs))
	for _, h := range hs {
		s := h.Effective.String()
		if h.Locked {
			s += " locked"
		}
		out = append(out, s)
	}
	return out
}

// TestScenarioAllOrNothing: an item failing late leaves nothing of the
// scenario: no user, party, coin or contract, the supply as before; the
// error names the item.
func TestScenarioAllOrNothing(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		var restores atomic.Int32
		l.OnRestore(func() { restores.Add(1) })
		before := ledgertest.Conserved(t, l)
		contracts := liveContracts(t, l)
		sc, err := devnet.ParseScenario([]byte(roundTrip + "  - {from: dave, to: alice, amount: \"1\"}\n" +
			"  - {from: bob, to: nobody, amount: \"1\"}\n"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = devnet.New(l).Seed(ctx, sc, nil)
		var v *fault.ValidationError
		if !errors.As(err, &v) || v.Field != "instructions[3].to" || !strings.Contains(v.Msg, `"nobody"`) {
			t.Fatalf("seed = %v; want instructions[3].to naming nobody", err)
		}
		if us, err := users.Of(l).All(ctx); err != nil || len(us) != 1 {
			t.Errorf("users after a failed seed: %+v, %v; want admin alone", us, err)
		}
		if _, err := users.Of(l).PartyOf(ctx, "alice"); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("alice after a failed seed: %v", err)
		}
		if got := ledgertest.Conserved(t, l); fmt.Sprint(got) != fmt.Sprint(before) {
			t.Errorf("supply = %+v; want %+v", got, before)
		}
		if got := liveContracts(t, l); !reflect.DeepEqual(got, contracts) {
			t.Errorf("contracts = %v; want %v", got, contracts)
		}
		if n := restores.Load(); n != 1 {
			t.Errorf("the rollback ran the restore hooks %d times; want once", n)
		}
		snaps, err := devnet.New(l).Snapshots(ctx)
		if err != nil || len(snaps) != 0 {
			t.Errorf("snapshots left = %+v, %v; want none", snaps, err)
		}
		// The network takes the scenario once fixed.
		sc.Instructions = sc.Instructions[:3]
		if _, err := devnet.New(l).Seed(ctx, sc, nil); err != nil {
			t.Fatalf("seed the fixed scenario: %v", err)
		}
		// A seed that lands replaces nothing: the live streams are not
		// moved past its updates.
		if n := restores.Load(); n != 1 {
			t.Errorf("a seed that landed ran the restore hooks (%d runs in all); want none", n-1)
		}
		// A second seed of the same users is refused, naming the first.
		_, err = devnet.New(l).Seed(ctx, sc, nil)
		if !errors.As(err, &v) || v.Field != "users[0].name" {
			t.Errorf("seed again = %v; want users[0].name", err)
		}
	})
}

// TestParseScenario: the file is read strictly and bounded, and each error
// names where it is.
func TestParseScenario(t *testing.T) {
	many := "users:\n" + strings.Repeat("  - name: x\n", devnet.MaxScenarioItems+1)
	for _, c := range []struct{ in, want string }{
		{"", "scenario: is empty"},
		{"users: []", "scenario: has nothing to create"},
		{"users:\n  - name: alice\n    balanse: 10\n", "field balanse not found"},
		{"colour: blue\n", "field colour not found"},
		{"users:\n  - name: a\n---\nusers:\n  - name: b\n", "more than one YAML document"},
		{"users:\n  - name: a\n  - name: b\n    balance: ten\n", `users[1].balance: "ten" is not an amount`},
		{"users:\n  - name: a\n    balance: -1\n", "users[0].balance: enter an amount greater than 0"},
		{"users:\n  - name: a\n    balance: 1\n    holdings: [1]\n", "users[0].holdings: give a balance or holdings, not both"},
		{"users:\n  - name: a\nparties:\n  - name: a\n", `parties[0].name: "a" is also users[0]'s name`},
		{"parties:\n  - name: a b!\n", "parties[0].name: party hint has the character"},
		{"users:\n  - name: \" a\"\n", "users[0].name: must not begin or end with spaces"},
		{"users:\n  - name: " + strings.Repeat("n", 256) + "\n", "users[0].name: has 256 characters"},
		{"parties:\n  - name: " + strings.Repeat("n", 186) + "\n", "parties[0].name: party hint is longer than 185"},
		{"users:\n  - name: a\n    external: true\n", "users[0].external"},
		{"parties:\n  - name: a\n    minting_delegation: {}\n", "parties[0].minting_delegation: only an external party"},
		{"parties:\n  - name: a\n    external: true\n    minting_delegation: {merge_limit: 5000}\n", "parties[0].minting_delegation.merge_limit"},
		{"offers:\n  - {from: a, to: a, amount: 1}\n", "offers[0].to: is the sender itself"},
		{"offers:\n  - {from: a, to: b, amount: 1, expires_in: soon}\n", `offers[0].expires_in: "soon" is not a duration`},
		{"instructions:\n  - {from: a, to: b, amount: 1, expires_at: tomorrow}\n", "instructions[0].expires_at"},
		{"instructions:\n  - {from: a, to: b}\n", "instructions[0].amount: is required"},
		{"users:\n  - name: a\n    holdings: [" + strings.Repeat("1, ", devnet.MaxScenarioHoldings) + "1]\n", "users[0].holdings: has 101 holdings"},
		{many, "users: has 1001 items"},
		{strings.Repeat("#", devnet.MaxScenarioBytes+1), "scenario: is 1048577 bytes"},
		{`{"users": [{"name": "a", "balance": 5, "extra": 1}]}`, "field extra not found"},
	} {
		_, err := devnet.ParseScenario([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) || !fault.IsValidation(err) {
			t.Errorf("ParseScenario(%.60q) = %v; want a validation error with %q", c.in, err, c.want)
		}
	}
	sc, err := devnet.ParseScenario([]byte(`{"users": [{"name": "a", "balance": 5}], "offers": [{"from": "a", "to": "admin", "amount": "1"}]}`))
	if err != nil || sc.Users[0].Balance != "5" || sc.Offers[0].To != "admin" {
		t.Errorf("JSON scenario = %+v, %v", sc, err)
	}
}

func TestMain(m *testing.M) { ledgertest.Main(m) }
