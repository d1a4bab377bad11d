package api_test

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/web"
)

// api is a test client for the full route table.
type api struct {
	t   *testing.T
	h   http.Handler
	key ed25519.PrivateKey
}

func newJobsAPI(t *testing.T, l *ledger.Ledger, jobs func() []handlers.JobStatus) *api {
	t.Helper()
	_, key, _ := ed25519.GenerateKey(nil)
	v, err := web.NewVerifier(web.AuthConfig{Audience: "test", StaticKeys: map[string]crypto.PublicKey{"k": key.Public()}}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return &api{t: t, h: handlers.New(l, handlers.Config{Auth: v, Jobs: jobs}, nil).Routes(nil), key: key}
}

// do calls method path as user with body and decodes the answer into out.
func (a *api) do(user, method, path, body string, out any) int {
	a.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if user != "" {
		tok, err := web.SignDevToken(a.key, "k", "test", "test", user, time.Hour)
		if err != nil {
			a.t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	rec := httptest.NewRecorder()
	a.h.ServeHTTP(rec, req)
	if out != nil {
		if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
			a.t.Fatalf("%s %s: decode %q: %v", method, path, rec.Body.String(), err)
		}
	}
	return rec.Code
}

func TestAdvanceRoundsEndpoint(t *testing.T) {
	l := ledgertest.New(t, ledgertest.Engines[0])
	if _, err := users.Of(l).Onboard(context.Background(), "alice", ""); err != nil {
		t.Fatal(err)
	}
	a := newJobsAPI(t, l, nil)
	tests := []struct {
		name, user, body string
		want             int
	}{
		{"not admin", "alice", `{"rounds": 1}`, http.StatusForbidden},
		{"no token", "", `{"rounds": 1}`, http.StatusUnauthorized},
		{"zero", "admin", `{"rounds": 0}`, http.StatusBadRequest},
		{"missing", "admin", `{}`, http.StatusBadRequest},
		{"too many", "admin", `{"rounds": 100001}`, http.StatusBadRequest},
		{"not a number", "admin", `{"rounds": "x"}`, http.StatusBadRequest},
		{"both", "admin", `{"rounds": 1, "until": "2099-01-01T00:00:00Z"}`, http.StatusBadRequest},
		{"until not a time", "admin", `{"until": "tomorrow"}`, http.StatusBadRequest},
		{"until in the past", "admin", `{"until": "2000-01-01T00:00:00Z"}`, http.StatusBadRequest},
		{"until too far", "admin", `{"until": "9999-01-01T00:00:00Z"}`, http.StatusBadRequest},
		{"ok", "admin", `{"rounds": 4}`, http.StatusOK},
	}
	for _, tt := range tests {
		var body map[string]any
		if got := a.do(tt.user, "POST", "/v0/admin/devnet/advance-rounds", tt.body, &body); got != tt.want {
			t.Errorf("%s: status %d, want %d (%v)", tt.name, got, tt.want, body)
		}
		if tt.want != http.StatusOK && body["error"] == nil {
			t.Errorf("%s: no error message: %v", tt.name, body)
		}
	}
	var resp struct {
		From   int64   `json:"from_round"`
		To     int64   `json:"to_round"`
		Closed []int64 `json:"closed_rounds"`
	}
	if code := a.do("admin", "POST", "/api/validator/v0/admin/devnet/advance-rounds", `{"rounds": 1}`, &resp); code != http.StatusOK || resp.From != 4 || resp.To != 5 || len(resp.Closed) != 1 {
		t.Errorf("second advance = %d %+v", code, resp)
	}
	// Until a time 25 minutes after the latest round opened: three ticks
	// of 10 minutes, rounded up.
	open, err := l.Rounds().OpenRounds(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	until := open[len(open)-1].OpensAt.Add(25 * time.Minute).Format(time.RFC3339Nano)
	if code := a.do("admin", "POST", "/v0/admin/devnet/advance-rounds", `{"until": "`+until+`"}`, &resp); code != http.StatusOK || resp.From != 5 || resp.To != 8 {
		t.Errorf("advance until %s = %d %+v, want rounds 5 to 8", until, code, resp)
	}
}

func TestAdvanceRoundsOutsideDevNetIs501(t *testing.T) {
	l, err := ledgertest.OpenLedger(context.Background(), ledgertest.DB(t, ledgertest.Engines[1]), ledger.Config{AdminUsers: []string{"admin"}})
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if code := newJobsAPI(t, l, nil).do("admin", "POST", "/v0/admin/devnet/advance-rounds", `{"rounds": 1}`, &body); code != http.StatusNotImplemented || body["error"] == nil {
		t.Errorf("status %d %v, want 501 with an error", code, body)
	}
}

func TestJobsEndpoint(t *testing.T) {
	l := ledgertest.New(t, ledgertest.Engines[1])
	if _, err := users.Of(l).Onboard(context.Background(), "alice", ""); err != nil {
		t.Fatal(err)
	}
	last := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	a := newJobsAPI(t, l, func() []handlers.JobStatus {
		return []handlers.JobStatus{{Name: "round-clock", Schedule: "every 1m0s", LastRun: &last, Runs: 3}, {Name: "merge-holdings", LastError: "boom"}}
	})
	var got []map[string]any
	if code := a.do("admin", "GET", "/v0/admin/jobs", "", &got); code != http.StatusOK || len(got) != 2 {
		t.Fatalf("status %d, %v", code, got)
	}
	if got[0]["name"] != "round-clock" || got[0]["last_run"] != "2026-11-01T12:00:00Z" || got[0]["runs"] != 3.0 || got[1]["last_error"] != "boom" || got[1]["last_run"] != nil {
		t.Errorf("jobs = %v", got)
	}
	if code := a.do("alice", "GET", "/v0/admin/jobs", "", nil); code != http.StatusForbidden {
		t.Errorf("non-admin: %d, want 403", code)
	}
	var empty []any
	if code := newJobsAPI(t, l, nil).do("admin", "GET", "/v0/admin/jobs", "", &empty); code != http.StatusOK || empty == nil || len(empty) != 0 {
		t.Errorf("without a scheduler: %d %v, want an empty list", code, empty)
	}
}

func TestMergeDelegationEndpoints(t *testing.T) {
	l := ledgertest.New(t, ledgertest.Engines[0])
	ctx := context.Background()
	alice, err := users.Of(l).Onboard(ctx, "alice", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := users.Of(l).Onboard(ctx, "bob", ""); err != nil {
		t.Fatal(err)
	}
	as := make([]coin.Amount, 15)
	for i := range as {
		as[i] = coin.MustParse("1")
	}
	if err := ledgertest.Dev(t, l).MintBulk(ctx, alice, as); err != nil {
		t.Fatal(err)
	}
	a := newJobsAPI(t, l, nil)
	type dto struct {
		Contract struct {
			ContractID string `json:"contract_id"`
			TemplateID string `json:"template_id"`
		} `json:"contract"`
		Status string `json:"status"`
	}
	var prop dto
	if code := a.do("alice", "POST", "/v0/wallet/merge-delegation-proposals", `{}`, &prop); code != http.StatusOK || prop.Status != "proposed" || prop.Contract.TemplateID != delegations.TemplateMergeDelegationProposal {
		t.Fatalf("propose = %d %+v", code, prop)
	}
	if code := a.do("alice", "POST", "/v0/admin/merge-delegation-proposals/"+prop.Contract.ContractID+"/accept", ``, nil); code != http.StatusForbidden {
		t.Errorf("user accepting = %d, want 403", code)
	}
	var del dto
	if code := a.do("admin", "POST", "/v0/admin/merge-delegation-proposals/"+prop.Contract.ContractID+"/accept", ``, &del); code != http.StatusOK || del.Status != "active" {
		t.Fatalf("accept = %d %+v", code, del)
	}
	if code := a.do("admin", "POST", "/v0/admin/merge-delegation-proposals/"+prop.Contract.ContractID+"/accept", ``, nil); code != http.StatusConflict {
		t.Errorf("accept twice = %d, want 409", code)
	}
	var progress struct {
		Parties []struct {
			PartyID  string `json:"party_id"`
			Holdings int    `json:"holdings"`
		} `json:"parties"`
	}
	if code := a.do("admin", "GET", "/v0/admin/merge-progress", "", &progress); code != http.StatusOK || len(progress.Parties) != 1 || progress.Parties[0].Holdings != 15 {
		t.Errorf("progress = %d %+v", code, progress)
	}
	var list struct {
		Proposals   []dto `json:"proposals"`
		Delegations []dto `json:"delegations"`
	}
	if code := a.do("alice", "GET", "/v0/wallet/merge-delegations", "", &list); code != http.StatusOK || len(list.Proposals) != 0 || len(list.Delegations) != 1 {
		t.Errorf("list = %d %+v", code, list)
	}
	withdraw := "/v0/wallet/merge-delegations/" + del.Contract.ContractID + "/withdraw"
	if code := a.do("bob", "POST", withdraw, ``, nil); code != http.StatusNotFound {
		t.Errorf("bob withdrawing alice's = %d, want 404", code)
	}
	if code := a.do("alice", "POST", "/v0/wallet/merge-delegations/not-a-cid/withdraw", ``, nil); code != http.StatusBadRequest {
		t.Errorf("bad contract id = %d, want 400", code)
	}
	if code := a.do("alice", "POST", withdraw, ``, nil); code != http.StatusOK {
		t.Errorf("withdraw = %d, want 200", code)
	}
	if code := a.do("alice", "POST", withdraw, ``, nil); code != http.StatusConflict {
		t.Errorf("withdraw twice = %d, want 409", code)
	}
}
