package api_test

// The contract test of the name service's validator API
// (ans-external.yaml): every operation through the full router on both
// engines, each exchange validated against the spec.

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/users"
)

// ansOperations are the operations of ans-external.yaml this test covers.
var ansOperations = []string{
	"ans-external.yaml#createAnsEntry",
	"ans-external.yaml#listAnsEntries",
}

func TestContractAns(t *testing.T) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			t.Parallel()
			e := newContractEnv(t, engine)
			runAnsContract(t, e)
			e.checkOperations(t, ansOperations, nil)
		})
	}
}

func runAnsContract(t *testing.T, e *contractEnv) {
	ctx := context.Background()
	alice, err := users.Of(e.l).Onboard(ctx, "alice", "")
	if err != nil {
		t.Fatal(err)
	}
	ledgertest.Mint(t, e.l, alice, "500")
	if r := e.prefixed("alice", "GET", "/v0/entry/all", nil, 200); strings.TrimSpace(string(r.Body)) != `{"entries":[]}` {
		t.Errorf("alice's entries = %s", r.Body)
	}
	e.expect("stranger", "GET", "/v0/entry/all", nil, 404)

	// Bad requests name the field.
	for _, body := range []map[string]any{
		{"name": "alice", "url": "", "description": ""},
		{"name": "alice.unverified.cns", "url": "ftp://alice", "description": ""},
		{"name": "alice.unverified.cns", "url": "", "description": strings.Repeat("d", 141)},
		{"name": "alice.unverified.cns", "url": ""},
	} {
		e.expect("alice", "POST", "/v0/entry/create", body, 400)
	}
	name := "alice.unverified.cns"
	var created struct {
		EntryContextCid        string `json:"entryContextCid"`
		SubscriptionRequestCid string `json:"subscriptionRequestCid"`
		Name                   string `json:"name"`
	}
	e.expect("alice", "POST", "/api/validator/v0/entry/create", map[string]any{"name": name, "url": "https://alice.example", "description": "Alice's"}, 200).JSON(t, &created)
	if created.Name != name || created.EntryContextCid == "" || created.SubscriptionRequestCid == "" {
		t.Fatalf("created = %+v", created)
	}
	// The user accepts the subscription; the DSO's automation collects.
	if _, err := e.w.Subscriptions.AcceptSubscriptionRequest(ctx, alice, coin.ContractID(created.SubscriptionRequestCid)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.w.Subscriptions.CollectSubscriptions(ctx); err != nil {
		t.Fatal(err)
	}
	var all struct {
		Entries []map[string]string `json:"entries"`
	}
	e.prefixed("alice", "GET", "/v0/entry/all", nil, 200).JSON(t, &all)
	want := strconv.FormatInt(e.clock.Now().Add(90*24*time.Hour).UnixMilli(), 10)
	if len(all.Entries) != 1 || all.Entries[0]["name"] != name || all.Entries[0]["expiresAt"] != want || all.Entries[0]["paymentInterval"] != "7776000000000" {
		t.Errorf("entries = %+v", all.Entries)
	}
	// The name is taken now.
	e.expect("alice", "POST", "/v0/entry/create", map[string]any{"name": name, "url": "", "description": ""}, 400)
	// And scan's lookups find it.
	var byName struct {
		Entry map[string]any `json:"entry"`
	}
	e.prefixed("bob", "GET", "/v0/scan-proxy/ans-entries/by-name/"+name, nil, 200).JSON(t, &byName)
	if byName.Entry["user"] != string(alice) || byName.Entry["contract_id"] != all.Entries[0]["contractId"] || byName.Entry["url"] != "https://alice.example" {
		t.Errorf("by name = %v", byName.Entry)
	}
	e.prefixed("bob", "GET", "/v0/scan-proxy/ans-entries/by-party/"+string(alice), nil, 200)
	if r := e.prefixed("bob", "GET", "/v0/scan-proxy/ans-entries?page_size=5&name_prefix=alice", nil, 200); !strings.Contains(string(r.Body), name) {
		t.Errorf("list = %s", r.Body)
	}
}
