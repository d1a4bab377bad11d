package api_test

// The contract test of the subscription operations (issue 26 point 2),
// on both engines, every exchange validated against the specs.

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/subscriptions"
	"github.com/ccwallet/ccwallet/ledger/users"
)

// subscriptionOperations are the operations this test covers.
var subscriptionOperations = []string{
	"wallet-internal.yaml#listSubscriptionRequests",
	"wallet-internal.yaml#listSubscriptionInitialPayments",
	"wallet-internal.yaml#listSubscriptions",
	"wallet-internal.yaml#acceptSubscriptionRequest",
	"wallet-internal.yaml#rejectSubscriptionRequest",
	"wallet-internal.yaml#getSubscriptionRequest",
	"wallet-internal.yaml#cancelSubscriptionRequest",
}

func TestContractSubscriptions(t *testing.T) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			t.Parallel()
			e := newContractEnv(t, engine)
			runSubscriptionsContract(t, e)
			e.checkOperations(t, subscriptionOperations, nil)
		})
	}
}

func runSubscriptionsContract(t *testing.T, e *contractEnv) {
	ctx := context.Background()
	const stranger = "stranger" // a valid token, no wallet
	onboard := func(name string) coin.PartyID {
		p, err := users.Of(e.l).Onboard(ctx, name, "")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	alice, carol, app := onboard("alice"), onboard("carol"), onboard("app")
	onboard("bob")
	ledgertest.Mint(t, e.l, alice, "100")
	request := func(sender coin.PartyID) string {
		cid, err := e.w.Subscriptions.RequestSubscription(ctx, subscriptions.SubscriptionRequestSpec{
			Sender: sender, Receiver: app, Provider: app, Description: "premium plan", Amount: coin.MustParse("5"),
			Interval: time.Hour, Duration: 10 * time.Minute,
		})
		if err != nil {
			t.Fatal(err)
		}
		return string(cid)
	}
	const reqs = "/v0/wallet/subscription-requests"
	unknown := string(coin.NewContractID())

	// List and get: alice's own requests only.
	req := request(alice)
	if n := listLen(t, e.prefixed("alice", "GET", reqs, nil, 200), "subscription_requests"); n != 1 {
		t.Errorf("alice's requests = %d, want 1", n)
	}
	if n := listLen(t, e.expect("bob", "GET", reqs, nil, 200), "subscription_requests"); n != 0 {
		t.Errorf("bob sees %d requests", n)
	}
	e.expect(stranger, "GET", reqs, nil, 404)
	if got := field(t, e.prefixed("alice", "GET", reqs+"/"+req, nil, 200), "contract_id"); got != req {
		t.Errorf("get = %s, want %s", got, req)
	}
	e.expect("bob", "GET", reqs+"/"+req, nil, 404)
	e.expect("alice", "GET", reqs+"/"+unknown, nil, 404)

	// Accept: the provider may not, a second accept answers the first
	// payment, a sender without coin gets 400, one in flight 429.
	e.expect("app", "POST", reqs+"/"+req+"/accept", nil, 404)
	e.expect("bob", "POST", reqs+"/"+req+"/accept", nil, 404)
	e.inFlight("subscription-accept:"+req, func() {
		e.expect("alice", "POST", reqs+"/"+req+"/accept", nil, 429)
	})
	paid := field(t, e.expect("alice", "POST", reqs+"/"+req+"/accept", nil, 200), "initial_payment_contract_id")
	if again := field(t, e.expect("alice", "POST", "/api/validator"+reqs+"/"+req+"/accept", nil, 200), "initial_payment_contract_id"); again != paid {
		t.Errorf("second accept = %s, want %s", again, paid)
	}
	e.expect("alice", "GET", reqs+"/"+req, nil, 404) // accepted: no longer pending
	poor := request(carol)
	if r := e.expect("carol", "POST", reqs+"/"+poor+"/accept", nil, 400); !json.Valid(r.Body) {
		t.Errorf("400 body %s", r.Body)
	}
	e.expect("alice", "POST", reqs+"/"+unknown+"/accept", nil, 404)

	// The initial payment waits for the provider's collection.
	var ips struct {
		InitialPayments []proxyContract `json:"initial_payments"`
	}
	e.prefixed("alice", "GET", "/v0/wallet/subscription-initial-payments", nil, 200).JSON(t, &ips)
	if len(ips.InitialPayments) != 1 || ips.InitialPayments[0].ContractID != paid {
		t.Errorf("initial payments = %+v, want %s", ips.InitialPayments, paid)
	}
	e.expect(stranger, "GET", "/v0/wallet/subscription-initial-payments", nil, 404)

	// Reject: carol's request; again is 404 (it is gone), as a stranger's.
	e.expect("carol", "POST", reqs+"/"+poor+"/reject", nil, 200)
	e.expect("carol", "POST", reqs+"/"+poor+"/reject", nil, 404)
	e.expect("alice", "POST", reqs+"/"+request(carol)+"/reject", nil, 404)

	// Collected: a subscription, idle; paid again: a payment in flight.
	subs := func() []struct {
		Subscription proxyContract `json:"subscription"`
		State        struct {
			Idle    *proxyContract `json:"idle"`
			Payment *proxyContract `json:"payment"`
		} `json:"state"`
	} {
		var out struct {
			Subscriptions []struct {
				Subscription proxyContract `json:"subscription"`
				State        struct {
					Idle    *proxyContract `json:"idle"`
					Payment *proxyContract `json:"payment"`
				} `json:"state"`
			} `json:"subscriptions"`
		}
		e.prefixed("alice", "GET", "/v0/wallet/subscriptions", nil, 200).JSON(t, &out)
		return out.Subscriptions
	}
	if _, err := e.w.Subscriptions.CollectSubscriptions(ctx); err != nil {
		t.Fatal(err)
	}
	s := subs()
	if len(s) != 1 || s[0].State.Idle == nil || s[0].State.Payment != nil {
		t.Fatalf("subscriptions after collection = %+v", s)
	}
	e.expect(stranger, "GET", "/v0/wallet/subscriptions", nil, 404)
	e.clock.Advance(55 * time.Minute)
	if _, err := e.w.Subscriptions.PaySubscriptions(ctx); err != nil {
		t.Fatal(err)
	}
	if s := subs(); len(s) != 1 || s[0].State.Payment == nil || s[0].State.Idle != nil {
		t.Fatalf("subscriptions with a payment in flight = %+v", s)
	}
	if _, err := e.w.Subscriptions.CollectSubscriptions(ctx); err != nil {
		t.Fatal(err)
	}

	// Cancel (DELETE of the idle state): not by another party; twice is 404.
	idle := subs()[0].State.Idle.ContractID
	e.expect("bob", "DELETE", reqs+"/"+idle, nil, 404)
	e.expect("app", "DELETE", reqs+"/"+idle, nil, 404)
	e.expect("alice", "DELETE", reqs+"/"+idle, nil, 200)
	e.expect("alice", "DELETE", reqs+"/"+idle, nil, 404)
	if s := subs(); len(s) != 0 {
		t.Errorf("subscriptions after cancel = %+v", s)
	}

	// The steps show in alice's transaction log against their templates,
	// in the spec's shapes.
	var page struct {
		Items []struct {
			Type    string `json:"transaction_type"`
			Subtype struct {
				TemplateID string `json:"template_id"`
				Choice     string `json:"choice"`
			} `json:"transaction_subtype"`
		} `json:"items"`
	}
	e.expect("alice", "POST", "/v0/wallet/transactions", map[string]any{"page_size": 100}, 200).JSON(t, &page)
	var got []string
	for _, it := range page.Items {
		if strings.HasPrefix(it.Subtype.Choice, "Subscription") {
			got = append(got, it.Type+" "+it.Subtype.TemplateID[strings.LastIndex(it.Subtype.TemplateID, ":")+1:]+" "+it.Subtype.Choice)
		}
	}
	want := []string{
		"notification SubscriptionIdleState SubscriptionIdleState_CancelSubscription",
		"transfer SubscriptionPayment SubscriptionPayment_Collect",
		"transfer SubscriptionIdleState SubscriptionIdleState_MakePayment",
		"transfer SubscriptionInitialPayment SubscriptionInitialPayment_Collect",
		"transfer SubscriptionRequest SubscriptionRequest_AcceptAndMakePayment",
		"notification SubscriptionRequest SubscriptionRequest",
	}
	if !slices.Equal(got, want) {
		t.Errorf("alice's subscription transactions:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDevnetSubscriptionRequests: on a development network the admin
// makes a request as an app would; advancing rounds runs the subscription
// automations, so the first payment is collected and, once due, the next
// one paid and collected.
func TestDevnetSubscriptionRequests(t *testing.T) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			t.Parallel()
			e := newContractEnv(t, engine)
			ctx := context.Background()
			alice, err := users.Of(e.l).Onboard(ctx, "alice", "")
			if err != nil {
				t.Fatal(err)
			}
			app, err := users.Of(e.l).Onboard(ctx, "app", "")
			if err != nil {
				t.Fatal(err)
			}
			ledgertest.Mint(t, e.l, alice, "100")
			const path = "/v0/admin/devnet/subscription-requests"
			body := map[string]any{"sender": alice, "receiver": app, "provider": app, "description": "daily news", "amount": "2",
				"payment_interval_seconds": 86400, "payment_duration_seconds": 86400, "origins": []string{"https://news.example.com"}}
			if r := e.client("alice").DoOwn("POST", path, body); r.Status != 403 {
				t.Errorf("a user's request = %d, want 403", r.Status)
			}
			for field, bad := range map[string]any{"unit": "EUR", "amount": "-1", "payment_interval_seconds": 0, "origins": []string{"ftp://x"}, "sender": "nobody"} {
				b := map[string]any{}
				for k, v := range body {
					b[k] = v
				}
				b[field] = bad
				if r := e.client("admin").DoOwn("POST", path, b); r.Status != 400 {
					t.Errorf("%s %v = %d %s, want 400", field, bad, r.Status, r.Body)
				}
			}
			r := e.client("admin").DoOwn("POST", path, body)
			if r.Status != 200 {
				t.Fatalf("create = %d %s", r.Status, r.Body)
			}
			var created struct {
				ContractID string `json:"contract_id"`
			}
			r.JSON(t, &created)
			v, err := e.w.Subscriptions.SubscriptionRequest(ctx, alice, coin.ContractID(created.ContractID))
			if err != nil || v.RedirectTo("https://news.example.com/back") == "" || v.PayData.PaymentAmount.Amount.String() != "2.0000000000" {
				t.Fatalf("request = %+v, %v", v, err)
			}
			e.expect("alice", "POST", "/v0/wallet/subscription-requests/"+created.ContractID+"/accept", nil, 200)
			advance := func() subscriptions.SubscriptionView {
				t.Helper()
				if r := e.client("admin").DoOwn("POST", "/v0/admin/devnet/advance-rounds", map[string]any{"rounds": 1}); r.Status != 200 {
					t.Fatalf("advance = %d %s", r.Status, r.Body)
				}
				subs, err := e.w.Subscriptions.Subscriptions(ctx, alice)
				if err != nil || len(subs) != 1 || subs[0].Idle == nil {
					t.Fatalf("subscriptions after advancing = %+v, %v", subs, err)
				}
				return subs[0]
			}
			first := advance() // collected: due a day later, payable at once
			second := advance()
			if !second.NextPaymentDueAt.Equal(first.NextPaymentDueAt.Add(24 * time.Hour)) {
				t.Errorf("next due %s after the renewal, want %s", second.NextPaymentDueAt, first.NextPaymentDueAt.Add(24*time.Hour))
			}
			hs, err := history.New(e.l).List(ctx, app, history.Query{PageSize: 50})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hs {
				if strings.HasSuffix(h.Subtype, "_Collect") {
					got = append(got, h.Subtype+" "+h.Amount.String())
				}
			}
			want := []string{"SubscriptionPayment_Collect 2.0000000000", "SubscriptionInitialPayment_Collect 2.0000000000"}
			if !slices.Equal(got, want) {
				t.Errorf("the app's collections = %q, want %q", got, want)
			}
		})
	}
}
