package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestDevnetSnapshotAPI: an admin snapshots, lists, restores, resets and
// deletes over HTTP; the wallet API reads the snapshot's state after the
// restore and takes writes; mistakes get clear 4xx answers.
func TestDevnetSnapshotAPI(t *testing.T) {
	handlerstest.ForEachAPI(t, func(t *testing.T, a *handlerstest.API) {
		admin := a.As("admin")
		alice, _ := a.User("alice", "100")
		if r := admin.DoOwn("POST", "/v0/admin/devnet/snapshots", map[string]any{"name": "base"}); r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		var list struct {
			Snapshots []struct {
				Name  string `json:"name"`
				Bytes int64  `json:"bytes"`
			} `json:"snapshots"`
		}
		admin.DoOwn("GET", "/v0/admin/devnet/snapshots", nil).JSON(t, &list)
		if len(list.Snapshots) != 1 || list.Snapshots[0].Name != "base" || list.Snapshots[0].Bytes <= 0 {
			t.Errorf("list = %+v", list)
		}
		if r := alice.DoOwn("POST", "/v0/wallet/tap", map[string]any{"amount": "50"}); r.Status != http.StatusOK {
			t.Fatalf("tap: %d %s", r.Status, r.Body)
		}
		a.User("carol", "1")

		if r := admin.DoOwn("POST", "/api/validator/v0/admin/devnet/snapshots/base/restore", nil); r.Status != http.StatusOK {
			t.Fatalf("restore: %d %s", r.Status, r.Body)
		}
		var bal map[string]any
		alice.Do("GET", "/v0/wallet/balance", nil).JSON(t, &bal)
		if q, _ := bal["effective_unlocked_qty"].(string); !strings.HasPrefix(q, "99.") && q != "100.0000000000" {
			t.Errorf("alice's balance after restore = %v; want the snapshot's 100 (less fees)", bal)
		}
		if r := a.As("carol").DoOwn("GET", "/v0/wallet/balance", nil); r.Status != http.StatusNotFound {
			t.Errorf("carol after restore: %d %s; want 404 (not onboarded then)", r.Status, r.Body)
		}
		if r := alice.DoOwn("POST", "/v0/wallet/tap", map[string]any{"amount": "5"}); r.Status != http.StatusOK {
			t.Errorf("tap after restore: %d %s", r.Status, r.Body)
		}
		ledgertest.Conserved(t, a.L)

		for _, c := range []struct {
			who, method, path string
			body              any
			want              int
		}{
			{"admin", "POST", "/v0/admin/devnet/snapshots", map[string]any{"name": "../etc"}, 400},
			{"admin", "POST", "/v0/admin/devnet/snapshots", map[string]any{"name": ""}, 400},
			{"admin", "POST", "/v0/admin/devnet/snapshots", map[string]any{"name": strings.Repeat("x", 41)}, 400},
			{"admin", "POST", "/v0/admin/devnet/snapshots", map[string]any{"name": "base"}, 409},
			{"admin", "POST", "/v0/admin/devnet/snapshots/Base/restore", nil, 400},
			{"admin", "POST", "/v0/admin/devnet/snapshots/..%2F..%2Fx/restore", nil, 400},
			{"admin", "POST", "/v0/admin/devnet/snapshots/missing/restore", nil, 404},
			{"admin", "DELETE", "/v0/admin/devnet/snapshots/missing", nil, 404},
			{"alice", "POST", "/v0/admin/devnet/snapshots", map[string]any{"name": "mine"}, 403},
			{"alice", "POST", "/v0/admin/devnet/snapshots/base/restore", nil, 403},
			{"alice", "POST", "/v0/admin/devnet/reset", nil, 403},
			{"", "GET", "/v0/admin/devnet/snapshots", nil, 401},
		} {
			if r := a.As(c.who).DoOwn(c.method, c.path, c.body); r.Status != c.want {
				t.Errorf("%s %s %s as %q: %d %s; want %d", c.method, c.path, c.body, c.who, r.Status, r.Body, c.want)
			}
		}

		if r := admin.DoOwn("POST", "/v0/admin/devnet/reset", nil); r.Status != http.StatusOK {
			t.Fatalf("reset: %d %s", r.Status, r.Body)
		}
		if r := alice.DoOwn("GET", "/v0/wallet/balance", nil); r.Status != http.StatusNotFound {
			t.Errorf("alice after reset: %d %s; want 404", r.Status, r.Body)
		}
		if r := admin.DoOwn("DELETE", "/v0/admin/devnet/snapshots/base", nil); r.Status != http.StatusOK {
			t.Errorf("delete: %d %s", r.Status, r.Body)
		}
	})
}

// TestDevnetSnapshotsAbsentInProduction: a production network has no
// snapshot, restore or reset endpoints at all.
func TestDevnetSnapshotsAbsentInProduction(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			l, err := ledgertest.OpenLedger(context.Background(), ledgertest.DB(t, e), ledger.Config{AdminUsers: []string{"admin"}})
			if err != nil {
				t.Fatal(err)
			}
			a := newJobsAPI(t, l, nil)
			for _, c := range [][2]string{
				{"GET", "/v0/admin/devnet/snapshots"}, {"POST", "/v0/admin/devnet/snapshots"},
				{"POST", "/v0/admin/devnet/snapshots/base/restore"}, {"DELETE", "/v0/admin/devnet/snapshots/base"},
				{"POST", "/v0/admin/devnet/reset"},
			} {
				var body map[string]any
				if code := a.do("admin", c[0], c[1], `{"name": "base"}`, &body); code != http.StatusNotFound || body["error"] == nil {
					t.Errorf("%s %s in production: %d %v; want 404", c[0], c[1], code, body)
				}
			}
		})
	}
}
