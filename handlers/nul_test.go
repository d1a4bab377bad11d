package handlers_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/web"
)

// TestNULRefused: a NUL character, which Postgres text cannot hold, is
// refused with 400 and a clear error wherever text enters (JSON body,
// path, query, form body), and with 401 in a token's subject; nothing
// changes.
func TestNULRefused(t *testing.T) {
	a := handlerstest.NewAPI(t, 0) // Postgres
	aliceC, alice := a.User("alice", "")
	_, bob := a.User("bob", "")
	ledgertest.Mint(t, a.L, alice, "100")
	if _, _, err := a.L.Preapprovals().Create(t.Context(), bob); err != nil {
		t.Fatal(err)
	}
	before := ledgertest.Conserved(t, a.L)
	tok := aliceC.Token
	send := func(body string) string {
		return `{"receiver_party_id":"` + string(bob) + `","amount":"1",` + body + `}`
	}
	cases := []struct {
		name, method, target, contentType, body string
	}{
		{"JSON description", "POST", "/v0/wallet/transfer-preapproval/send", "application/json", send(`"deduplication_id":"d1","description":"a\u0000b"`)},
		{"JSON deduplication id", "POST", "/v0/wallet/transfer-preapproval/send", "application/json", send(`"deduplication_id":"d\u0000"`)},
		{"JSON offer tracking id", "POST", "/v0/wallet/transfer-offers", "application/json",
			`{"receiver_party_id":"` + string(bob) + `","amount":"1","description":"x","expires_at":` + `9999999999000000` + `,"tracking_id":"t\u0000"}`},
		{"path", "POST", "/v0/wallet/transfer-offers/%00abc/accept", "application/json", `{}`},
		{"query", "GET", "/v0/wallet/transfer-offers?x=a%00b", "", ""},
		{"form", "POST", "/send", "application/x-www-form-urlencoded", "receiver=" + string(bob) + "&amount=1&description=a%00b"},
	}
	for _, c := range cases {
		r := httptest.NewRequest(c.method, c.target, strings.NewReader(c.body))
		if c.contentType != "" {
			r.Header.Set("Content-Type", c.contentType)
		}
		r.Header.Set("Authorization", "Bearer "+tok)
		w := httptest.NewRecorder()
		a.H.ServeHTTP(w, r)
		if w.Code != 400 || !strings.Contains(w.Body.String(), "NUL") {
			t.Errorf("%s: %d %s; want 400 naming the NUL character", c.name, w.Code, w.Body)
		}
	}

	nulSub, err := web.SignDevToken(a.Signer, handlerstest.KID, "", handlerstest.Audience, "ali\x00ce", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/v0/wallet/balance", nil)
	r.Header.Set("Authorization", "Bearer "+nulSub)
	w := httptest.NewRecorder()
	a.H.ServeHTTP(w, r)
	if w.Code != 401 {
		t.Errorf("token whose sub holds a NUL: %d %s; want 401", w.Code, w.Body)
	}

	// A clean request still works, and nothing moved before it.
	if after := ledgertest.Conserved(t, a.L); !after.Minted.Equal(before.Minted) || !after.Burned.Equal(before.Burned) {
		t.Errorf("refused requests changed the ledger: %+v -> %+v", before, after)
	}
	if r := aliceC.DoOwn("POST", "/v0/wallet/transfer-preapproval/send", send(`"deduplication_id":"d2","description":"fine"`)); r.Status != 200 {
		t.Errorf("clean send: %d %s", r.Status, r.Body)
	}
}
