package handlers_test

// The contract test of the subscription operations (issue 26 point 2),
// on both engines, every exchange validated against the specs.

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
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
		p, err := e.l.Onboard(ctx, name, "")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	alice, carol, app := onboard("alice"), onboard("carol"), onboard("app")
	onboard("bob")
	ledgertest.Mint(t, e.l, alice, "100")
	request := func(sender coin.PartyID) string {
		cid, err := e.l.RequestSubscription(ctx, ledger.SubscriptionRequestSpec{
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
	if _, err := e.l.CollectSubscriptions(ctx); err != nil {
		t.Fatal(err)
	}
	s := subs()
	if len(s) != 1 || s[0].State.Idle == nil || s[0].State.Payment != nil {
		t.Fatalf("subscriptions after collection = %+v", s)
	}
	e.expect(stranger, "GET", "/v0/wallet/subscriptions", nil, 404)
	e.clock.Advance(55 * time.Minute)
	if _, err := e.l.PaySubscriptions(ctx); err != nil {
		t.Fatal(err)
	}
	if s := subs(); len(s) != 1 || s[0].State.Payment == nil || s[0].State.Idle != nil {
		t.Fatalf("subscriptions with a payment in flight = %+v", s)
	}
	if _, err := e.l.CollectSubscriptions(ctx); err != nil {
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
}
