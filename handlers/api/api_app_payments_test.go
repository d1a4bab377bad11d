package api_test

// The contract test of the app payment endpoints (issue 26 point 3), on
// both engines, every exchange validated against the specs.

import (
	"context"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/apppayments"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/payments"
	"github.com/ccwallet/ccwallet/ledger/users"
)

// appPaymentOperations are the operations this test covers.
var appPaymentOperations = []string{
	"wallet-internal.yaml#listAppPaymentRequests",
	"wallet-internal.yaml#getAppPaymentRequest",
	"wallet-internal.yaml#acceptAppPaymentRequest",
	"wallet-internal.yaml#rejectAppPaymentRequest",
	"wallet-internal.yaml#listAcceptedAppPayments",
}

// appPaymentUnreachable are the declared statuses no exchange can
// produce here.
var appPaymentUnreachable = map[string]string{
	// Accept takes no command id, so no accept is ever in flight under
	// one; the rate limiter's 429 is covered by the limiter's own tests.
	"wallet-internal.yaml#acceptAppPaymentRequest 429": "no command id to be in flight",
}

func TestContractAppPayments(t *testing.T) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			t.Parallel()
			e := newContractEnv(t, engine)
			runAppPaymentsContract(t, e)
			e.checkOperations(t, appPaymentOperations, appPaymentUnreachable)
		})
	}
}

func runAppPaymentsContract(t *testing.T, e *contractEnv) {
	ctx := context.Background()
	const stranger = "stranger" // a valid token, no wallet
	onboard := func(name string) coin.PartyID {
		p, err := users.Of(e.l).Onboard(ctx, name, "")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	alice, shop := onboard("alice"), onboard("shop")
	ledgertest.Mint(t, e.l, alice, "100")
	request := func(amount string, expires time.Duration) string {
		t.Helper()
		res, err := e.w.AppPayments.RequestAppPayment(ctx, []coin.PartyID{shop}, apppayments.AppPaymentRequest{
			Sender: alice, Provider: shop, ExpiresAt: ledger.FormatTime(e.clock.Now().Add(expires)), Description: "a coffee",
			ReceiverAmounts: []apppayments.ReceiverAmount{{Receiver: shop, Amount: ledger.PaymentAmount{Amount: coin.MustParse(amount), Unit: payments.UnitAmulet}}},
		}, commands.Command{})
		if err != nil {
			t.Fatal(err)
		}
		return string(res.Created)
	}
	const reqs = "/v0/wallet/app-payment-requests"
	if n := listLen(t, e.prefixed("alice", "GET", reqs, nil, 200), "payment_requests"); n != 0 {
		t.Errorf("alice has %d requests before any", n)
	}
	e.expect(stranger, "GET", reqs, nil, 404)
	e.expect(stranger, "GET", "/v0/wallet/accepted-app-payments", nil, 404)

	pay, drop, late := request("10", time.Hour), request("5", time.Hour), request("1", time.Minute)
	if n := listLen(t, e.expect("alice", "GET", reqs, nil, 200), "payment_requests"); n != 3 {
		t.Errorf("alice has %d requests, want 3", n)
	}
	if n := listLen(t, e.expect("shop", "GET", reqs, nil, 200), "payment_requests"); n != 0 {
		t.Errorf("the provider is asked to pay %d requests, want 0", n)
	}
	var got struct {
		Contract struct {
			ContractID string `json:"contract_id"`
			Payload    struct {
				Sender          string `json:"sender"`
				ReceiverAmounts []struct {
					Amount struct {
						Amount string `json:"amount"`
						Unit   string `json:"unit"`
					} `json:"amount"`
				} `json:"receiverAmounts"`
			} `json:"payload"`
		} `json:"contract"`
		DomainID string `json:"domain_id"`
	}
	e.prefixed("alice", "GET", reqs+"/"+pay, nil, 200).JSON(t, &got)
	if got.Contract.ContractID != pay || got.Contract.Payload.Sender != string(alice) || got.Contract.Payload.ReceiverAmounts[0].Amount.Unit != "AmuletUnit" || got.DomainID == "" {
		t.Errorf("request = %+v", got)
	}
	e.expect("shop", "GET", reqs+"/"+pay, nil, 404) // not the provider's to answer
	e.expect("alice", "GET", reqs+"/nope", nil, 404)

	// Accept: the total is locked; a second accept finds nothing.
	acc := field(t, e.expect("alice", "POST", reqs+"/"+pay+"/accept", nil, 200), "accepted_payment_contract_id")
	e.expect("alice", "POST", reqs+"/"+pay+"/accept", nil, 404)
	e.expect("shop", "POST", reqs+"/"+drop+"/accept", nil, 404)
	b, err := e.l.Balance(ctx, alice)
	if err != nil || b.EffectiveLocked.String() != "10.0000000000" || b.EffectiveUnlocked.String() != "90.0000000000" {
		t.Errorf("after accept: %+v, %v", b, err)
	}
	var accepted struct {
		Payments []struct {
			Contract struct {
				ContractID string `json:"contract_id"`
			} `json:"contract"`
		} `json:"accepted_app_payments"`
	}
	e.prefixed("alice", "GET", "/v0/wallet/accepted-app-payments", nil, 200).JSON(t, &accepted)
	if len(accepted.Payments) != 1 || accepted.Payments[0].Contract.ContractID != acc {
		t.Errorf("accepted payments = %+v, want %s", accepted, acc)
	}

	// More than alice holds: 400, nothing locked.
	big := request("1000", time.Hour)
	e.expect("alice", "POST", reqs+"/"+big+"/accept", nil, 400)
	// Expired (not yet by the automation): 400 saying so.
	e.clock.Advance(2 * time.Minute)
	e.expect("alice", "POST", reqs+"/"+late+"/accept", nil, 400)

	// Reject: 200, then gone.
	e.expect("shop", "POST", reqs+"/"+drop+"/reject", nil, 404)
	e.expect("alice", "POST", reqs+"/"+drop+"/reject", nil, 200)
	e.expect("alice", "POST", reqs+"/"+drop+"/reject", nil, 404)
	e.expect("alice", "GET", reqs+"/"+drop, nil, 404)

	// The provider collects through the ledger; the list empties.
	if _, err := e.w.AppPayments.MoveAcceptedAppPayment(ctx, []coin.PartyID{shop}, coin.ContractID(acc), apppayments.AppPaymentCollect, commands.Command{}); err != nil {
		t.Fatal(err)
	}
	if n := listLen(t, e.expect("alice", "GET", "/v0/wallet/accepted-app-payments", nil, 200), "accepted_app_payments"); n != 0 {
		t.Errorf("%d accepted payments after collection", n)
	}
}
