package api_test

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	extparty "github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

func exampleScenario(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "scenarios", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDevnetSeedAPI: an admin seeds scenarios (YAML or JSON) over HTTP
// and dumps the network; the external party's key comes back in the
// answer and is the party's; a failing item is a 400 naming it with
// nothing created; others may not seed.
func TestDevnetSeedAPI(t *testing.T) {
	handlerstest.ForEachAPI(t, func(t *testing.T, a *handlerstest.API) {
		admin := a.As("admin")
		r := admin.DoOwn("POST", "/v0/admin/devnet/seed", exampleScenario(t, "two-traders.yaml"))
		if r.Status != http.StatusCreated {
			t.Fatalf("seed: %d %s", r.Status, r.Body)
		}
		var seeded struct {
			Parties map[string]string `json:"parties"`
			Keys    map[string]struct {
				PartyID    string `json:"party_id"`
				PublicKey  string `json:"public_key"`
				PrivateKey string `json:"private_key"`
			} `json:"keys"`
		}
		r.JSON(t, &seeded)
		if !strings.HasPrefix(seeded.Parties["alice"], "alice::") || len(seeded.Keys) != 0 {
			t.Errorf("seeded = %+v", seeded)
		}
		var bal map[string]any
		a.As("alice").Do("GET", "/v0/wallet/balance", nil).JSON(t, &bal)
		if bal["effective_unlocked_qty"] != "1000.0000000000" {
			t.Errorf("alice's balance = %v; want 1000", bal)
		}

		r = admin.DoOwn("POST", "/v0/admin/devnet/seed", exampleScenario(t, "external-party.yaml"))
		if r.Status != http.StatusCreated {
			t.Fatalf("seed: %d %s", r.Status, r.Body)
		}
		r.JSON(t, &seeded)
		k := seeded.Keys["treasury"]
		seed, err := hex.DecodeString(k.PrivateKey)
		if err != nil || len(seed) != ed25519.SeedSize || k.PartyID != seeded.Parties["treasury"] {
			t.Fatalf("treasury's key = %+v, %v", k, err)
		}
		key := ed25519.NewKeyFromSeed(seed)
		treasury, carol := coin.PartyID(k.PartyID), coin.PartyID(seeded.Parties["carol"])
		p, err := extparty.New(a.L).PrepareExternalTransfer(context.Background(), treasury, carol, coin.MustParse("1"), "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := extparty.New(a.L).Submit(context.Background(), ledgertest.Sign(t, treasury, key, p)); err != nil {
			t.Errorf("a transfer signed with the answered key: %v", err)
		}

		r = admin.DoOwn("GET", "/v0/admin/devnet/dump", nil)
		sc, err := devnet.ParseScenario(r.Body)
		if r.Status != http.StatusOK || err != nil || len(sc.Users) != 3 || len(sc.Parties) != 1 || len(sc.Offers) != 1 || len(sc.Instructions) != 1 {
			t.Errorf("dump: %d %v\n%s", r.Status, err, r.Body)
		}

		before := ledgertest.Conserved(t, a.L)
		for _, c := range []struct {
			who, body, want string
			status          int
		}{
			{"admin", `{"users": [{"name": "dave", "balance": "5"}], "offers": [{"from": "dave", "to": "nobody", "amount": "1"}]}`, `offers[0].to: "nobody" is no user or party`, 400},
			{"admin", "users:\n  - name: erin\n    colour: red\n", "field colour not found", 400},
			{"admin", "users:\n  - name: erin\n    balance: 1\noffers:\n  - {from: erin, to: alice, amount: 1, expires_at: \"2020-01-01T00:00:00Z\"}\n", "offers[0].expires_at: 2020-01-01T00:00:00Z is not in the future", 400},
			{"admin", "users:\n  - name: alice\n", `users[0].name: a user "alice" is on the network already`, 400},
			{"admin", "", "scenario: is empty", 400},
			{"admin", strings.Repeat("#", devnet.MaxScenarioBytes+1), "larger than", 413},
			{"alice", "users:\n  - name: frank\n", "", 403},
			{"", "users:\n  - name: frank\n", "", 401},
		} {
			r := a.As(c.who).DoOwn("POST", "/v0/admin/devnet/seed", c.body)
			if r.Status != c.status || !strings.Contains(r.Error(), c.want) {
				t.Errorf("seed %.40q as %q: %d %s; want %d with %q", c.body, c.who, r.Status, r.Body, c.status, c.want)
			}
		}
		if r := a.As("dave").DoOwn("GET", "/v0/wallet/balance", nil); r.Status != http.StatusNotFound {
			t.Errorf("dave after a failed seed: %d %s; want 404", r.Status, r.Body)
		}
		if got := ledgertest.Conserved(t, a.L); fmt.Sprint(got) != fmt.Sprint(before) {
			t.Errorf("supply after failed seeds = %+v; want %+v", got, before)
		}
	})
}

// TestDevnetSeedAbsentInProduction: a production network has no seed or
// dump endpoints.
func TestDevnetSeedAbsentInProduction(t *testing.T) {
	l, err := ledgertest.OpenLedger(context.Background(), ledgertest.DB(t, ledgertest.Engines[0]), ledger.Config{AdminUsers: []string{"admin"}})
	if err != nil {
		t.Fatal(err)
	}
	a := newJobsAPI(t, l, nil)
	for _, c := range [][2]string{{"POST", "/v0/admin/devnet/seed"}, {"GET", "/v0/admin/devnet/dump"}} {
		var body map[string]any
		if code := a.do("admin", c[0], c[1], "users:\n  - name: x\n", &body); code != http.StatusNotFound || body["error"] == nil {
			t.Errorf("%s %s in production: %d %v; want 404", c[0], c[1], code, body)
		}
	}
}
