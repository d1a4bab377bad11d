package api_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger/traffic"
)

// TestBuyTrafficAPI covers createBuyTrafficRequest and
// getBuyTrafficRequestStatus, every status, against the spec.
func TestBuyTrafficAPI(t *testing.T) { handlerstest.ForEachAPI(t, testBuyTrafficAPI) }

func testBuyTrafficAPI(t *testing.T, a *handlerstest.API) {
	alice, alicePID := a.User("alice", "1000")
	poor, _ := a.User("poor", "1")
	stranger := a.As("not-onboarded")
	op := a.L.Operator()
	exp := a.Clock.Now().Add(time.Hour).UnixMicro()
	body := func(party coin.PartyID, domain string, bytes int64, tracking string) map[string]any {
		return map[string]any{"receiving_validator_party_id": party, "domain_id": domain, "traffic_amount": bytes, "tracking_id": tracking, "expires_at": exp}
	}
	sync := a.L.SynchronizerID()
	const path = "/api/validator/v0/wallet/buy-traffic-requests"
	r := alice.Do(http.MethodPost, path, body(alicePID, sync, 200_000, "b1"))
	var created struct {
		RequestContractID string `json:"request_contract_id"`
	}
	r.JSON(t, &created)
	if r.Status != http.StatusOK || created.RequestContractID == "" {
		t.Fatalf("buy = %d %s", r.Status, r.Body)
	}
	// 200 kB at 16.67 USD/MB is 3.334 USD, 666.8 coin at 0.005 USD.
	b, err := a.L.Balance(t.Context(), alicePID)
	if err != nil || !b.EffectiveUnlocked.Equal(coin.MustParse("333.2")) {
		t.Errorf("balance after purchase = %s, %v; want 333.2", b.EffectiveUnlocked, err)
	}
	ts, err := traffic.New(a.L).TrafficStatus(t.Context(), op)
	if err != nil || ts.Purchased != 200_000 || ts.NumPurchases != 1 || !ts.CoinSpent.Equal(coin.MustParse("666.8")) {
		t.Errorf("traffic status = %+v, %v", ts, err)
	}
	for _, c := range []struct {
		name   string
		client handlerstest.APIClient
		body   any
		want   int
	}{
		{"reused tracking id", alice, body(op, sync, 200_000, "b1"), http.StatusConflict},
		{"below minimum", alice, body(op, sync, 199_999, "b2"), http.StatusBadRequest},
		{"unknown domain", alice, body(op, "global-domain::1220ab", 200_000, "b2"), http.StatusBadRequest},
		{"unknown party", alice, body(coin.PartyID("ghost::"+op.Namespace()), sync, 200_000, "b2"), http.StatusBadRequest},
		{"malformed party", alice, body("ghost", sync, 200_000, "b2"), http.StatusBadRequest},
		{"missing field", alice, map[string]any{"domain_id": sync}, http.StatusBadRequest},
		{"insufficient funds", poor, body(op, sync, 200_000, "b2"), http.StatusBadRequest},
		{"no wallet", stranger, body(op, sync, 200_000, "b2"), http.StatusNotFound},
	} {
		if r := c.client.Do(http.MethodPost, path, c.body); r.Status != c.want {
			t.Errorf("%s = %d %s, want %d", c.name, r.Status, r.Body, c.want)
		}
	}
	var st struct {
		Status        string `json:"status"`
		TransactionID string `json:"transaction_id"`
	}
	r = alice.Do(http.MethodPost, path+"/b1/status", nil)
	r.JSON(t, &st)
	if r.Status != http.StatusOK || st.Status != "completed" || st.TransactionID == "" {
		t.Errorf("status = %d %s", r.Status, r.Body)
	}
	if r := alice.Do(http.MethodPost, path+"/b2/status", nil); r.Status != http.StatusNotFound {
		t.Errorf("unknown status = %d %s", r.Status, r.Body)
	}
	if r := poor.Do(http.MethodPost, path+"/b1/status", nil); r.Status != http.StatusNotFound {
		t.Errorf("another user's status = %d %s", r.Status, r.Body)
	}
}
