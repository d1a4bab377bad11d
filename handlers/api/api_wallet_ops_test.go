package api_test

// The contract test of the remaining wallet and validator operations
// (issue 26 point 5): featured app rights, the coupon lists this network
// never fills, feature support and the validator's support endpoints, on
// both engines, every exchange validated against the specs.

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/users"
)

// walletOpsOperations are the operations this test covers.
var walletOpsOperations = []string{
	"wallet-internal.yaml#selfGrantFeatureAppRight",
	"wallet-internal.yaml#cancelFeaturedAppRights",
	"wallet-internal.yaml#listValidatorFaucetCoupons",
	"wallet-internal.yaml#listSvRewardCoupons",
	"wallet-internal.yaml#featureSupport",
	"validator-internal.yaml#dumpParticipantIdentities",
	"validator-internal.yaml#getDecentralizedSynchronizerConnectionConfig",
	"validator-internal.yaml#getValidatorDomainDataSnapshot",
}

func TestContractWalletOps(t *testing.T) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			t.Parallel()
			e := newContractEnv(t, engine)
			runWalletOpsContract(t, e)
			e.checkOperations(t, walletOpsOperations, nil)
		})
	}
}

func runWalletOpsContract(t *testing.T, e *contractEnv) {
	ctx := context.Background()
	const stranger = "stranger" // a valid token, no wallet
	alice, err := users.Of(e.l).Onboard(ctx, "alice", "")
	if err != nil {
		t.Fatal(err)
	}
	bob, err := users.Of(e.l).Onboard(ctx, "bob", "")
	if err != nil {
		t.Fatal(err)
	}
	featured := func(user string) bool {
		var us struct {
			Featured bool `json:"has_featured_app_right"`
		}
		e.expect(user, "GET", "/v0/wallet/user-status", nil, 200).JSON(t, &us)
		return us.Featured
	}
	lookup := func(party string) string {
		var fa struct {
			Right *proxyContract `json:"featured_app_right"`
		}
		e.expect("bob", "GET", "/v0/scan-proxy/featured-apps/"+party, nil, 200).JSON(t, &fa)
		if fa.Right == nil {
			return ""
		}
		return fa.Right.ContractID
	}

	// Self-grant: alice's own party, once; again is the same right.
	if featured("alice") {
		t.Fatal("alice is featured before the grant")
	}
	const grant = "/v0/wallet/self-grant-feature-app-right"
	cid := field(t, e.expect("alice", "POST", grant, map[string]any{}, 200), "contract_id")
	if again := field(t, e.expect("alice", "POST", "/api/validator"+grant, nil, 200), "contract_id"); again != cid {
		t.Errorf("a second grant gave %s, want the first right %s", again, cid)
	}
	if !featured("alice") || featured("bob") {
		t.Errorf("after alice's grant: alice featured %v, bob featured %v", featured("alice"), featured("bob"))
	}
	if got := lookup(string(alice)); got != cid {
		t.Errorf("scan-proxy featured-apps/alice = %q, want %s", got, cid)
	}
	if lookup(string(bob)) != "" {
		t.Error("bob has a featured app right he never granted")
	}
	e.expect(stranger, "POST", grant, map[string]any{}, 404)
	if r := e.client("").DoOwn("POST", grant, map[string]any{}); r.Status != 401 {
		t.Errorf("grant without a token = %d", r.Status)
	}

	// Both show in alice's history, in the spec's transaction shape.
	history := func() []string {
		var page struct {
			Items []struct {
				Type    string `json:"transaction_type"`
				Subtype struct {
					Choice string `json:"choice"`
				} `json:"transaction_subtype"`
			} `json:"items"`
		}
		e.expect("alice", "POST", "/v0/wallet/transactions", map[string]any{"page_size": 100}, 200).JSON(t, &page)
		var out []string
		for _, it := range page.Items {
			if strings.Contains(it.Subtype.Choice, "FeaturedAppRight") {
				out = append(out, it.Type+" "+it.Subtype.Choice)
			}
		}
		return out
	}
	if h := history(); len(h) != 1 || h[0] != "notification WalletAppInstall_FeaturedAppRights_SelfGrant" {
		t.Errorf("alice's featured app right history = %q", h)
	}

	// Cancel: bob's cancel (he has none) leaves alice's right; alice's
	// archives it; cancelling again is still 200.
	const cancel = "/v0/wallet/cancel-featured-app-rights"
	e.expect("bob", "DELETE", cancel, nil, 200)
	if lookup(string(alice)) != cid {
		t.Fatal("bob's cancel removed alice's right")
	}
	e.expect("alice", "DELETE", cancel, nil, 200)
	if lookup(string(alice)) != "" || featured("alice") {
		t.Error("alice's right survived her cancel")
	}
	e.expect("alice", "DELETE", "/api/validator"+cancel, nil, 200)
	if h := history(); len(h) != 2 || h[0] != "notification FeaturedAppRight_Cancel" {
		t.Errorf("alice's featured app right history after cancel = %q", h)
	}
	if lookup(string(e.l.Operator())) == "" {
		t.Error("the operator lost its featured app right")
	}
	if r := e.client(stranger).DoOwn("DELETE", cancel, nil); r.Status != 404 {
		t.Errorf("cancel without a wallet = %d %s, want 404", r.Status, r.Body)
	}

	// The coupon lists this network never fills: empty, wallet required.
	for op, fieldName := range map[string]string{"validator-faucet-coupons": "validator_faucet_coupons", "sv-reward-coupons": "sv_reward_coupons"} {
		if n := listLen(t, e.prefixed("alice", "GET", "/v0/wallet/"+op, nil, 200), fieldName); n != 0 {
			t.Errorf("%s has %d entries, want none", op, n)
		}
		e.expect(stranger, "GET", "/v0/wallet/"+op, nil, 404)
	}
	e.prefixed(stranger, "GET", "/v0/feature-support", nil, 200)

	// The validator's support endpoints: admins only.
	const (
		ids  = "/v0/admin/participant/identities"
		conn = "/v0/admin/participant/global-domain-connection-config"
		snap = "/v0/admin/domain/data-snapshot"
	)
	at := ledger.FormatTime(e.clock.Now().Add(-time.Minute))
	for _, p := range []string{ids, conn, snap + "?timestamp=" + at} {
		if r := e.client("alice").DoOwn("GET", p, nil); r.Status != 403 {
			t.Errorf("GET %s as a user = %d %s, want 403", p, r.Status, r.Body)
		}
	}
	var dump struct {
		ID   string            `json:"id"`
		Keys []json.RawMessage `json:"keys"`
	}
	e.prefixed("admin", "GET", ids, nil, 200).JSON(t, &dump)
	if !strings.HasPrefix(dump.ID, "participant::") || len(dump.Keys) != 0 {
		t.Errorf("identities = %+v", dump)
	}
	var cc struct {
		C struct {
			Connections []struct {
				Alias string `json:"sequencer_alias"`
			} `json:"connections"`
			Threshold int `json:"sequencer_trust_threshold"`
		} `json:"sequencer_connections"`
	}
	e.prefixed("admin", "GET", conn, nil, 200).JSON(t, &cc)
	if len(cc.C.Connections) != 1 || cc.C.Connections[0].Alias != e.l.SynchronizerID() || cc.C.Threshold != 1 {
		t.Errorf("connection config = %+v", cc)
	}
	var ds struct {
		Snapshot struct {
			Participant struct {
				ID string `json:"id"`
			} `json:"participant"`
			Users struct {
				Users []struct {
					ID     string `json:"id"`
					Party  string `json:"primaryParty"`
					Rights []struct {
						Kind  string `json:"kind"`
						Party string `json:"party"`
					} `json:"rights"`
				} `json:"users"`
			} `json:"participant_users"`
			AcsTimestamp string `json:"acs_timestamp"`
			DomainID     string `json:"domain_id"`
		} `json:"data_snapshot"`
		MigrationID int64 `json:"migration_id"`
	}
	e.prefixed("admin", "GET", snap+"?timestamp="+at+"&migration_id=0&force=false", nil, 200).JSON(t, &ds)
	if ds.Snapshot.Participant.ID != dump.ID || ds.Snapshot.DomainID != e.l.SynchronizerID() || ds.Snapshot.AcsTimestamp != at || ds.MigrationID != 0 {
		t.Errorf("data snapshot = %+v", ds)
	}
	found := false
	for _, u := range ds.Snapshot.Users.Users {
		if u.ID == "alice" {
			found = u.Party == string(alice) && len(u.Rights) > 0 && u.Rights[0].Kind == "canActAs" && u.Rights[0].Party == string(alice)
		}
	}
	if !found {
		t.Errorf("alice is not in the snapshot's users as herself: %+v", ds.Snapshot.Users)
	}
	for q, want := range map[string]string{
		"":                     "timestamp: query parameter is required",
		"?timestamp=yesterday": "not an ISO-8601 time",
		"?timestamp=" + ledger.FormatTime(e.clock.Now().Add(time.Hour)): "in the future",
		"?timestamp=" + at + "&migration_id=3":                          "this network is on migration 0, not 3",
		"?timestamp=" + at + "&force=maybe":                             "force: must be true or false",
	} {
		r := e.client("admin").DoOwn("GET", snap+q, nil)
		if r.Status != 400 || !strings.Contains(r.Error(), want) {
			t.Errorf("GET %s%s = %d %s, want 400 %q", snap, q, r.Status, r.Body, want)
		}
	}
}
