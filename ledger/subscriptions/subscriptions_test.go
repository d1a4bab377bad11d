package subscriptions_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/payments"
	"github.com/ccwallet/ccwallet/ledger/subscriptions"
	"github.com/google/go-cmp/cmp"
)

// subscriptionFixture is a sender with coin, an app's provider (also the
// receiver) and a stranger.
type subscriptionFixture struct {
	l                          *ledger.Ledger
	s                          *subscriptions.Service
	clock                      *ledgertest.Clock
	sender, provider, stranger coin.PartyID
	fee                        coin.Amount // of one 10 CC payment
	ctx                        context.Context
}

// forEachEngineSubscriptionFees is forEachEngineClock on a network that
// charges transfer fees (the default rules charge none), so the tests see
// the fee of each payment.
func forEachEngineSubscriptionFees(t *testing.T, fn func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock)) {
	ledgertest.ForEachEngineFeesOf(t, "0.003", "0.001", fn)
}

func newSubscriptionFixture(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock, funds string) *subscriptionFixture {
	f := &subscriptionFixture{l: l, s: newService(l), clock: clock, ctx: context.Background(),
		sender: ledgertest.Party(t, l), provider: ledgertest.Party(t, l), stranger: ledgertest.Party(t, l)}
	ledgertest.Mint(t, l, f.sender, funds)
	b, err := l.Balance(f.ctx, f.sender)
	if err != nil {
		t.Fatal(err)
	}
	f.fee = l.Rules().OutputFee(coin.MustParse("10"), b.Price, false)
	return f
}

// request asks the sender for 10 CC an hour, payable 10 minutes early.
func (f *subscriptionFixture) request(t *testing.T, app string) coin.ContractID {
	t.Helper()
	cid, err := f.s.RequestSubscription(f.ctx, subscriptions.SubscriptionRequestSpec{
		Sender: f.sender, Receiver: f.provider, Provider: f.provider, Description: "a name", Amount: coin.MustParse("10"),
		Interval: time.Hour, Duration: 10 * time.Minute, App: app, Origins: []string{"https://App.example.com/"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return cid
}

func (f *subscriptionFixture) subs(t *testing.T) []subscriptions.SubscriptionView {
	t.Helper()
	vs, err := f.s.Subscriptions(f.ctx, f.sender)
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

func (f *subscriptionFixture) balances(t *testing.T) []string {
	t.Helper()
	return ledgertest.Balances(t, f.l, f.sender, f.provider)
}

func cc(s string) string { return coin.MustParse(s).String() }

// TestSubscriptionLifecycle: a request is accepted (the first payment is
// locked with the transfer fee), collected (the receiver gets exactly the
// amount, the subscription is idle until an interval later), the wallet
// automation pays the next payment only within paymentDuration of its due
// time, the provider collects it, and the next due time moves by one
// interval; the app's hooks run in the collections. Both engines; supply
// conserved after each step.
func TestSubscriptionLifecycle(t *testing.T) {
	app := &testApp{}
	registerTestApp("lifecycle", app)
	forEachEngineSubscriptionFees(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		f := newSubscriptionFixture(t, l, clock, "100")
		ctx := f.ctx
		req := f.request(t, "lifecycle")
		if cs, err := f.s.SubscriptionRequests(ctx, f.sender); err != nil || len(cs) != 1 || cs[0].ContractID != req {
			t.Fatalf("SubscriptionRequests = %v, %v", cs, err)
		}
		v, err := f.s.SubscriptionRequest(ctx, f.sender, req)
		if err != nil || v.Data.Provider != f.provider || v.PayData.PaymentInterval.Duration() != time.Hour || !cmp.Equal(v.Origins, []string{"https://app.example.com"}) {
			t.Fatalf("SubscriptionRequest = %+v, %v", v, err)
		}
		if _, err := f.s.AcceptSubscriptionRequest(ctx, f.stranger, req); !errors.Is(err, fault.ErrNotFound) {
			t.Fatalf("accept by a stranger = %v, want not found", err)
		}
		if _, err := f.s.AcceptSubscriptionRequest(ctx, f.provider, req); !errors.Is(err, fault.ErrForbidden) {
			t.Fatalf("accept by the provider = %v, want forbidden", err)
		}
		ip, err := f.s.AcceptSubscriptionRequest(ctx, f.sender, req)
		if err != nil {
			t.Fatal(err)
		}
		if again, err := f.s.AcceptSubscriptionRequest(ctx, f.sender, req); err != nil || again != ip {
			t.Fatalf("second accept = %s, %v, want the first's %s", again, err, ip)
		}
		// The lock holds the payment, its fee and the holding fee it may
		// accrue; nothing is spent yet.
		b, err := l.Balance(ctx, f.sender)
		if err != nil {
			t.Fatal(err)
		}
		if lock := coin.MustParse("10").Add(f.fee); b.EffectiveLocked.Cmp(lock) <= 0 || !b.EffectiveLocked.Add(b.EffectiveUnlocked).Equal(coin.MustParse("100")) || !f.fee.IsPositive() {
			t.Fatalf("after accept: locked %s, unlocked %s; want more than %s locked, 100 in all", b.EffectiveLocked, b.EffectiveUnlocked, lock)
		}
		lock := coin.MustParse("10").Add(f.fee)
		if ps, err := f.s.SubscriptionInitialPayments(ctx, f.sender); err != nil || len(ps) != 1 || ps[0].ContractID != ip {
			t.Fatalf("SubscriptionInitialPayments = %v, %v", ps, err)
		}
		ledgertest.Conserved(t, l)

		if n, err := f.s.CollectSubscriptions(ctx); err != nil || n != 1 {
			t.Fatalf("CollectSubscriptions = %d, %v", n, err)
		}
		want := []string{"unlocked=" + coin.MustParse("100").Sub(lock).String() + " locked=" + cc("0"), "unlocked=" + cc("10") + " locked=" + cc("0")}
		if diff := cmp.Diff(want, f.balances(t)); diff != "" {
			t.Fatalf("after collection (-want +got):\n%s", diff)
		}
		subs := f.subs(t)
		if len(subs) != 1 || subs[0].Idle == nil || !subs[0].NextPaymentDueAt.Equal(clock.Now().Add(time.Hour)) {
			t.Fatalf("Subscriptions after collection = %+v", subs)
		}
		sub, due := subs[0].Subscription.ContractID, subs[0].NextPaymentDueAt
		ledgertest.Conserved(t, l)

		// Not yet within paymentDuration of the due time: nothing is paid.
		clock.Advance(49 * time.Minute)
		if rep, err := f.s.PaySubscriptions(ctx); err != nil || rep != (subscriptions.SubscriptionPayReport{}) {
			t.Fatalf("PaySubscriptions early = %+v, %v", rep, err)
		}
		clock.Advance(2 * time.Minute)
		if rep, err := f.s.PaySubscriptions(ctx); err != nil || rep.Paid != 1 {
			t.Fatalf("PaySubscriptions = %+v, %v", rep, err)
		}
		if subs := f.subs(t); len(subs) != 1 || subs[0].Payment == nil || subs[0].Idle != nil {
			t.Fatalf("Subscriptions with a payment in flight = %+v", subs)
		}
		if err := f.s.CancelSubscription(ctx, f.sender, subs[0].Subscription.ContractID); !errors.Is(err, fault.ErrNotFound) {
			t.Fatalf("cancel with a payment in flight = %v, want not found", err)
		}
		ledgertest.Conserved(t, l)
		if n, err := f.s.CollectSubscriptions(ctx); err != nil || n != 1 {
			t.Fatalf("CollectSubscriptions = %d, %v", n, err)
		}
		left := coin.MustParse("100").Sub(lock).Sub(lock)
		want = []string{"unlocked=" + left.String() + " locked=" + cc("0"), "unlocked=" + cc("20") + " locked=" + cc("0")}
		if diff := cmp.Diff(want, f.balances(t)); diff != "" {
			t.Fatalf("after the second collection (-want +got):\n%s", diff)
		}
		subs = f.subs(t)
		if len(subs) != 1 || subs[0].Subscription.ContractID != sub || !subs[0].NextPaymentDueAt.Equal(due.Add(time.Hour)) {
			t.Fatalf("Subscriptions after renewal = %+v, want due %s", subs, due.Add(time.Hour))
		}
		wantCalls := []string{"initial " + string(req) + " " + string(sub), "renewal " + string(req) + " " + string(sub)}
		var got []string
		for _, c := range app.Calls() {
			if strings.Contains(c, string(req)) {
				got = append(got, c)
			}
		}
		if diff := cmp.Diff(wantCalls, got); diff != "" {
			t.Errorf("app hooks (-want +got):\n%s", diff)
		}

		// The sender cancels; no more payments are made.
		if err := f.s.CancelSubscription(ctx, f.stranger, subs[0].Idle.ContractID); !errors.Is(err, fault.ErrNotFound) {
			t.Fatalf("cancel by a stranger = %v, want not found", err)
		}
		if err := f.s.CancelSubscription(ctx, f.sender, subs[0].Idle.ContractID); err != nil {
			t.Fatal(err)
		}
		clock.Advance(2 * time.Hour)
		if rep, err := f.s.PaySubscriptions(ctx); err != nil || rep != (subscriptions.SubscriptionPayReport{}) {
			t.Fatalf("PaySubscriptions after cancel = %+v, %v", rep, err)
		}
		if subs := f.subs(t); len(subs) != 0 {
			t.Fatalf("Subscriptions after cancel = %+v", subs)
		}
		ledgertest.Conserved(t, l)
	})
}

// TestSubscriptionShortOfFunds: a payment the sender cannot afford leaves
// a notice saying so and is tried again on every run; once its due time
// passes unpaid the subscription expires, and the app's expiry hook runs.
func TestSubscriptionShortOfFunds(t *testing.T) {
	app := &testApp{}
	registerTestApp("short", app)
	forEachEngineSubscriptionFees(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		f := newSubscriptionFixture(t, l, clock, "15")
		ctx := f.ctx
		req := f.request(t, "short")
		if _, err := f.s.AcceptSubscriptionRequest(ctx, f.sender, req); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.CollectSubscriptions(ctx); err != nil {
			t.Fatal(err)
		}
		clock.Advance(55 * time.Minute)
		for range 2 {
			if rep, err := f.s.PaySubscriptions(ctx); err != nil || rep != (subscriptions.SubscriptionPayReport{Unpaid: 1}) {
				t.Fatalf("PaySubscriptions short = %+v, %v", rep, err)
			}
		}
		subs := f.subs(t)
		left := coin.MustParse("5").Sub(f.fee)
		wantNote := "could not pay subscription " + string(subs[0].Subscription.ContractID) + ": balance " + left.Short() + " CC, payment 10 CC plus fees"
		if len(subs) != 1 || subs[0].Unpaid != wantNote {
			t.Fatalf("notice = %q, want %q", subs[0].Unpaid, wantNote)
		}
		clock.Advance(10 * time.Minute)
		if rep, err := f.s.PaySubscriptions(ctx); err != nil || rep != (subscriptions.SubscriptionPayReport{Unpaid: 1, Expired: 1}) {
			t.Fatalf("PaySubscriptions past due = %+v, %v", rep, err)
		}
		if subs := f.subs(t); len(subs) != 0 {
			t.Fatalf("Subscriptions after expiry = %+v", subs)
		}
		if calls := app.Calls(); !slices.ContainsFunc(calls, func(c string) bool { return strings.HasPrefix(c, "expired "+string(req)) }) {
			t.Errorf("hooks = %v, want the expiry of %s", calls, req)
		}
		ledgertest.Conserved(t, l)
	})
}

// TestSubscriptionPaymentsEnd: a rejected request starts nothing; an
// initial payment whose lock expires uncollected, or that the app
// refuses, gives the sender's coin back, exactly.
func TestSubscriptionPaymentsEnd(t *testing.T) {
	refusing := &testApp{Refuse: true}
	registerTestApp("refusing", refusing)
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		f := newSubscriptionFixture(t, l, clock, "100")
		ctx := f.ctx
		full := []string{"unlocked=" + cc("100") + " locked=" + cc("0"), "unlocked=" + cc("0") + " locked=" + cc("0")}

		req := f.request(t, "")
		if err := f.s.RejectSubscriptionRequest(ctx, f.stranger, req); !errors.Is(err, fault.ErrNotFound) {
			t.Fatalf("reject by a stranger = %v", err)
		}
		if err := f.s.RejectSubscriptionRequest(ctx, f.sender, req); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.AcceptSubscriptionRequest(ctx, f.sender, req); !errors.Is(err, subscriptions.ErrSubscriptionFinished) {
			t.Fatalf("accept after reject = %v", err)
		}

		// The provider's automation is off (its party is not collecting):
		// simulate it by letting the lock expire before the run.
		req = f.request(t, "")
		if _, err := f.s.AcceptSubscriptionRequest(ctx, f.sender, req); err != nil {
			t.Fatal(err)
		}
		clock.Advance(l.Rules().TickDuration + time.Hour)
		if n, err := f.s.CollectSubscriptions(ctx); err != nil || n != 1 {
			t.Fatalf("CollectSubscriptions (expiry) = %d, %v", n, err)
		}
		if diff := cmp.Diff(full, f.balances(t)); diff != "" {
			t.Fatalf("after the lock expired (-want +got):\n%s", diff)
		}
		if subs := f.subs(t); len(subs) != 0 {
			t.Fatalf("a subscription started: %+v", subs)
		}

		req = f.request(t, "refusing")
		if _, err := f.s.AcceptSubscriptionRequest(ctx, f.sender, req); err != nil {
			t.Fatal(err)
		}
		if n, err := f.s.CollectSubscriptions(ctx); err != nil || n != 1 {
			t.Fatalf("CollectSubscriptions (refused) = %d, %v", n, err)
		}
		if diff := cmp.Diff(full, f.balances(t)); diff != "" {
			t.Fatalf("after the app refused (-want +got):\n%s", diff)
		}
		if ps, err := f.s.SubscriptionInitialPayments(ctx, f.sender); err != nil || len(ps) != 0 {
			t.Fatalf("initial payments left: %v, %v", ps, err)
		}
		ledgertest.Conserved(t, l)
	})
}

// TestSubscriptionRequestRefusals: a bad request is refused with its
// field and creates nothing.
func TestSubscriptionRequestRefusals(t *testing.T) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		f := newSubscriptionFixture(t, l, clock, "1")
		ok := subscriptions.SubscriptionRequestSpec{Sender: f.sender, Receiver: f.provider, Provider: f.provider, Amount: coin.MustParse("1"), Interval: time.Hour, Duration: time.Minute}
		for name, mod := range map[string]func(*subscriptions.SubscriptionRequestSpec){
			"amount":          func(s *subscriptions.SubscriptionRequestSpec) { s.Amount = coin.Zero },
			"paymentInterval": func(s *subscriptions.SubscriptionRequestSpec) { s.Interval = 0 },
			"paymentDuration": func(s *subscriptions.SubscriptionRequestSpec) { s.Duration = 2 * time.Hour },
			"origins":         func(s *subscriptions.SubscriptionRequestSpec) { s.Origins = []string{"javascript:alert(1)"} },
			"sender":          func(s *subscriptions.SubscriptionRequestSpec) { s.Receiver = s.Sender },
			"description": func(s *subscriptions.SubscriptionRequestSpec) {
				s.Description = strings.Repeat("x", bounds.MaxDescriptionLen)
			},
		} {
			s := ok
			mod(&s)
			_, err := f.s.RequestSubscription(f.ctx, s)
			var ve *fault.ValidationError
			if !errors.As(err, &ve) || ve.Field != name {
				t.Errorf("%s: err = %v, want a validation error of %s", name, err, name)
			}
		}
		if cs, err := f.s.SubscriptionRequests(f.ctx, f.sender); err != nil || len(cs) != 0 {
			t.Fatalf("requests = %v, %v", cs, err)
		}
	})
}

// TestSubscriptionLockCoversHoldingFees: rounds pass while a payment is
// locked (here jumped on a development network, which also runs the
// automations), yet the receiver gets the whole amount: the lock holds
// the holding fee it accrues, and the rest goes back to the sender.
func TestSubscriptionLockCoversHoldingFees(t *testing.T) {
	forEachEngineSubscriptionFees(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		f := newSubscriptionFixture(t, l, clock, "100")
		ctx := f.ctx
		if _, err := f.s.AcceptSubscriptionRequest(ctx, f.sender, f.request(t, "")); err != nil {
			t.Fatal(err)
		}
		if _, err := devnet.New(l, f.s.Automations()...).AdvanceRounds(ctx, 1); err != nil {
			t.Fatal(err)
		}
		if subs := f.subs(t); len(subs) != 1 {
			t.Fatalf("advancing did not collect: %+v", subs)
		}
		hs, err := history.New(l).List(ctx, f.provider, history.Query{PageSize: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(hs) == 0 || hs[0].Subtype != "SubscriptionInitialPayment_Collect" || hs[0].Amount.String() != cc("10") {
			t.Fatalf("the receiver's newest history = %+v, want the collection of exactly 10", hs)
		}
		sh, err := history.New(l).List(ctx, f.sender, history.Query{PageSize: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(sh) == 0 || sh[0].Subtype != "SubscriptionInitialPayment_Collect" || !sh[0].Amount.IsPositive() {
			t.Fatalf("the sender's newest history = %+v, want its change back", sh)
		}
		ledgertest.Conserved(t, l)
	})
}

// TestSubscriptionOfAnExternalSender: the payment automation does not
// pay for a party whose wallet is elsewhere (an external party's key is
// off the node), but the provider hosted here expires the subscription
// once its payment is missed.
func TestSubscriptionOfAnExternalSender(t *testing.T) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		f := newSubscriptionFixture(t, l, clock, "1")
		ext, _ := ledgertest.ExternalParty(t, l, "ext-subscriber")
		ledgertest.Mint(t, l, ext, "100")
		f.sender = ext
		if _, err := f.s.AcceptSubscriptionRequest(f.ctx, ext, f.request(t, "")); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.CollectSubscriptions(f.ctx); err != nil {
			t.Fatal(err)
		}
		clock.Advance(55 * time.Minute)
		if rep, err := f.s.PaySubscriptions(f.ctx); err != nil || rep != (subscriptions.SubscriptionPayReport{}) {
			t.Fatalf("PaySubscriptions within the window = %+v, %v; want nothing paid for an external party", rep, err)
		}
		clock.Advance(10 * time.Minute)
		if rep, err := f.s.PaySubscriptions(f.ctx); err != nil || rep != (subscriptions.SubscriptionPayReport{Expired: 1}) {
			t.Fatalf("PaySubscriptions past due = %+v, %v; want the provider's expiry", rep, err)
		}
		if subs := f.subs(t); len(subs) != 0 {
			t.Fatalf("subscriptions after expiry = %+v", subs)
		}
		ledgertest.Conserved(t, l)
	})
}

// TestSubscriptionRedirectTo: the confirm page's return URL follows the
// app payments' rule (RedirectAllowed): only the named origin, exactly,
// and nothing a browser could read as another host.
func TestSubscriptionRedirectTo(t *testing.T) {
	v := subscriptions.SubscriptionRequestView{Origins: []string{"https://shop.example.com"}}
	for raw, want := range map[string]bool{
		"https://shop.example.com/back?x=1":                                      true,
		"https://SHOP.example.com:443/back":                                      true,
		"https://shop.example.com\\@evil.com/":                                   false,
		"https://shop.example.com.evil.com/":                                     false,
		"http://shop.example.com/back":                                           false,
		"https://user@shop.example.com/back":                                     false,
		"//shop.example.com/back":                                                false,
		"https://shop.example.com/" + strings.Repeat("a", payments.MaxReturnURL): false,
	} {
		if got := v.RedirectTo(raw) != ""; got != want {
			t.Errorf("RedirectTo(%.60q) allowed = %v, want %v", raw, got, want)
		}
	}
}
