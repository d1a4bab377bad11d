package apppayments_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/apppayments"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/payments"
	"github.com/ccwallet/ccwallet/ledger/rewards"
	"github.com/google/go-cmp/cmp"
)

// paymentRequest is a request from provider to sender paying amounts
// (receiver, amount, receiver, amount, ...), expiring in an hour.
func paymentRequest(sender, provider coin.PartyID, now time.Time, amounts ...any) apppayments.AppPaymentRequest {
	p := apppayments.AppPaymentRequest{Sender: sender, Provider: provider, ExpiresAt: ledger.FormatTime(now.Add(time.Hour)), Description: "a coffee"}
	for i := 0; i < len(amounts); i += 2 {
		p.ReceiverAmounts = append(p.ReceiverAmounts, apppayments.ReceiverAmount{
			Receiver: amounts[i].(coin.PartyID), Amount: ledger.PaymentAmount{Amount: coin.MustParse(amounts[i+1].(string)), Unit: payments.UnitAmulet},
		})
	}
	return p
}

// paymentFees are the fees of paying amounts from sender at the open
// round's price: the rule's own OutputFee, so the test checks exact sums.
func paymentFees(t *testing.T, l *ledger.Ledger, sender coin.PartyID, amounts ...any) coin.Amount {
	t.Helper()
	_, price, err := l.CurrentRound(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fees := coin.Zero
	for i := 0; i < len(amounts); i += 2 {
		fees = fees.Add(l.Rules().OutputFee(coin.MustParse(amounts[i+1].(string)), price, amounts[i].(coin.PartyID) == sender))
	}
	return fees
}

// forEachEngineFees is forEachEngineClock on a network that charges
// transfer fees (the default charges none), so payments' fees are real.
func forEachEngineFees(t *testing.T, fn func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock)) {
	ledgertest.ForEachEngineFeesOf(t, "0.03", "0.01", fn)
}

// TestAppPaymentCollect: a provider's request to two receivers is
// accepted (the total plus fees locked, exactly) and collected: each
// receiver gets its amount, the fees burn, a featured provider earns one
// featured app reward and an unfeatured one none.
func TestAppPaymentCollect(t *testing.T) {
	forEachEngineFees(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		for _, featured := range []bool{true, false} {
			sender, other := ledgertest.Party(t, l), ledgertest.Party(t, l)
			provider := l.Operator() // featured: the ledger grants the operator its right
			if !featured {
				provider = ledgertest.Party(t, l)
			}
			ledgertest.Mint(t, l, sender, "100")
			coupons0 := appCoupons(t, l, provider)
			operator0 := ledgertest.Balances(t, l, provider)
			amounts := []any{provider, "10", other, "5"}
			req, err := pays(l).RequestAppPayment(ctx, []coin.PartyID{provider, other}, paymentRequest(sender, provider, clock.Now(), amounts...), commands.Command{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := pays(l).AppPaymentRequestsOf(ctx, sender)
			if err != nil || len(got) != 1 || got[0].Contract.ContractID != req.Created {
				t.Fatalf("requests of the sender = %+v, %v", got, err)
			}
			fees := paymentFees(t, l, sender, amounts...)
			if !fees.IsPositive() {
				t.Fatalf("fees = %s; the test needs a network that charges them", fees)
			}
			total := coin.MustParse("15").Add(fees)
			if !got[0].Quote.Total.Equal(total) || !got[0].Quote.Fees.Equal(fees) {
				t.Errorf("quote = %+v, want total %s fees %s", got[0].Quote, total, fees)
			}
			acc, err := pays(l).AcceptAppPayment(ctx, sender, req.Created, commands.Command{})
			if err != nil {
				t.Fatal(err)
			}
			want := "unlocked=" + coin.MustParse("100").Sub(total).String() + " locked=" + total.String()
			if diff := cmp.Diff([]string{want}, ledgertest.Balances(t, l, sender)); diff != "" {
				t.Fatalf("after accept (-want +got):\n%s", diff)
			}
			if reqs, _ := pays(l).AppPaymentRequestsOf(ctx, sender); len(reqs) != 0 {
				t.Errorf("the accepted request is still pending: %+v", reqs)
			}
			if ps, err := pays(l).AcceptedAppPaymentsOf(ctx, sender); err != nil || len(ps) != 1 || !ps[0].Quote.Total.Equal(total) {
				t.Fatalf("accepted payments = %+v, %v", ps, err)
			}
			if _, err := pays(l).MoveAcceptedAppPayment(ctx, []coin.PartyID{provider}, acc.Created, apppayments.AppPaymentCollect, commands.Command{}); err != nil {
				t.Fatal(err)
			}
			wantP := coin.MustParse(strings.TrimPrefix(strings.Fields(operator0[0])[0], "unlocked=")).Add(coin.MustParse("10"))
			if diff := cmp.Diff([]string{
				"unlocked=" + coin.MustParse("100").Sub(total).String() + " locked=0.0000000000",
				"unlocked=" + wantP.String() + " locked=0.0000000000",
				"unlocked=5.0000000000 locked=0.0000000000",
			}, ledgertest.Balances(t, l, sender, provider, other)); diff != "" {
				t.Errorf("after collect (-want +got):\n%s", diff)
			}
			wantCoupons := 0
			if featured {
				wantCoupons = 1
			}
			if n := appCoupons(t, l, provider) - coupons0; n != wantCoupons {
				t.Errorf("featured=%v: the provider earned %d app reward coupons, want %d", featured, n, wantCoupons)
			}
			if ps, _ := pays(l).AcceptedAppPaymentsOf(ctx, sender); len(ps) != 0 {
				t.Errorf("the collected payment is still pending: %+v", ps)
			}
			ledgertest.Conserved(t, l)
		}
	})
}

func appCoupons(t *testing.T, l *ledger.Ledger, p coin.PartyID) int {
	t.Helper()
	cs, err := rewards.New(l).Coupons(context.Background(), p, ledger.RewardApp)
	if err != nil {
		t.Fatal(err)
	}
	return len(cs)
}

// TestAppPaymentMoves runs every move on a request and an accepted
// payment, legal and illegal, on both engines: a refused move changes no
// balance, and refund and expiry give the sender's coin back exactly.
func TestAppPaymentMoves(t *testing.T) {
	type who string
	cases := []struct {
		name    string
		accept  bool          // accept the request first
		advance time.Duration // then move the clock
		rounds  int           // then advance rounds
		do      func(l *ledger.Ledger, party map[who]coin.PartyID, cid coin.ContractID) error
		wantErr error
		want    string // the sender's balance after
	}{
		{name: "reject", do: func(l *ledger.Ledger, p map[who]coin.PartyID, cid coin.ContractID) error {
			_, err := pays(l).RejectAppPayment(context.Background(), p["sender"], cid, commands.Command{})
			return err
		}, want: "unlocked=100.0000000000 locked=0.0000000000"},
		{name: "reject by the provider", do: func(l *ledger.Ledger, p map[who]coin.PartyID, cid coin.ContractID) error {
			_, err := pays(l).RejectAppPayment(context.Background(), p["provider"], cid, commands.Command{})
			return err
		}, wantErr: fault.ErrForbidden},
		{name: "withdraw by the receiver", do: func(l *ledger.Ledger, p map[who]coin.PartyID, cid coin.ContractID) error {
			_, err := pays(l).WithdrawAppPayment(context.Background(), []coin.PartyID{p["provider"]}, cid, commands.Command{})
			return err
		}, want: "unlocked=100.0000000000 locked=0.0000000000"},
		{name: "accept by the provider", do: func(l *ledger.Ledger, p map[who]coin.PartyID, cid coin.ContractID) error {
			_, err := pays(l).AcceptAppPayment(context.Background(), p["provider"], cid, commands.Command{})
			return err
		}, wantErr: fault.ErrForbidden},
		{name: "accept by a stranger", do: func(l *ledger.Ledger, p map[who]coin.PartyID, cid coin.ContractID) error {
			_, err := pays(l).AcceptAppPayment(context.Background(), p["stranger"], cid, commands.Command{})
			return err
		}, wantErr: fault.ErrNotFound},
		{name: "accept after expiry", advance: 2 * time.Hour, do: func(l *ledger.Ledger, p map[who]coin.PartyID, cid coin.ContractID) error {
			_, err := pays(l).AcceptAppPayment(context.Background(), p["sender"], cid, commands.Command{})
			return err
		}, wantErr: fault.ErrExpired},
		{name: "accept twice", accept: true, do: func(l *ledger.Ledger, p map[who]coin.PartyID, cid coin.ContractID) error {
			_, err := pays(l).AcceptAppPayment(context.Background(), p["sender"], cid, commands.Command{})
			return err
		}, wantErr: apppayments.ErrAppPaymentFinished},
		{name: "refund by the provider", accept: true, do: func(l *ledger.Ledger, p map[who]coin.PartyID, cid coin.ContractID) error {
			return move(l, p["provider"], cid, apppayments.AppPaymentRefund)
		}, want: "unlocked=100.0000000000 locked=0.0000000000"},
		{name: "refund by the sender", accept: true, do: func(l *ledger.Ledger, p map[who]coin.PartyID, cid coin.ContractID) error {
			return move(l, p["sender"], cid, apppayments.AppPaymentRefund)
		}, wantErr: fault.ErrForbidden},
		{name: "collect by the sender", accept: true, do: func(l *ledger.Ledger, p map[who]coin.PartyID, cid coin.ContractID) error {
			return move(l, p["sender"], cid, apppayments.AppPaymentCollect)
		}, wantErr: fault.ErrForbidden},
		{name: "collect by a stranger", accept: true, do: func(l *ledger.Ledger, p map[who]coin.PartyID, cid coin.ContractID) error {
			return move(l, p["stranger"], cid, apppayments.AppPaymentCollect)
		}, wantErr: fault.ErrNotFound},
		{name: "collect after the lock expired", accept: true, advance: time.Hour, do: func(l *ledger.Ledger, p map[who]coin.PartyID, cid coin.ContractID) error {
			return move(l, p["provider"], cid, apppayments.AppPaymentCollect)
		}, wantErr: fault.ErrExpired},
		{name: "collect in a later round", accept: true, rounds: 1, do: func(l *ledger.Ledger, p map[who]coin.PartyID, cid coin.ContractID) error {
			return move(l, p["provider"], cid, apppayments.AppPaymentCollect)
		}, wantErr: fault.ErrExpired},
		{name: "expire before the lock expired", accept: true, do: func(l *ledger.Ledger, p map[who]coin.PartyID, cid coin.ContractID) error {
			return move(l, p["sender"], cid, apppayments.AppPaymentExpire)
		}, wantErr: fault.ErrConflict},
		{name: "expire by the sender", accept: true, advance: time.Hour, do: func(l *ledger.Ledger, p map[who]coin.PartyID, cid coin.ContractID) error {
			return move(l, p["sender"], cid, apppayments.AppPaymentExpire)
		}, want: "unlocked=100.0000000000 locked=0.0000000000"},
	}
	forEachEngineFees(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				p := map[who]coin.PartyID{"sender": ledgertest.Party(t, l), "provider": ledgertest.Party(t, l), "stranger": ledgertest.Party(t, l)}
				ledgertest.Mint(t, l, p["sender"], "100")
				req, err := pays(l).RequestAppPayment(ctx, []coin.PartyID{p["provider"]}, paymentRequest(p["sender"], p["provider"], clock.Now(), p["provider"], "10"), commands.Command{})
				if err != nil {
					t.Fatal(err)
				}
				cid := req.Created
				if c.accept {
					acc, err := pays(l).AcceptAppPayment(ctx, p["sender"], cid, commands.Command{})
					if err != nil {
						t.Fatal(err)
					}
					if c.name != "accept twice" {
						cid = acc.Created
					}
				}
				clock.Advance(c.advance)
				if c.rounds > 0 {
					if _, err := devnet.New(l).AdvanceRounds(ctx, c.rounds); err != nil {
						t.Fatal(err)
					}
				}
				before := ledgertest.Balances(t, l, p["sender"], p["provider"])
				hist0 := ledgertest.HistoryLens(t, l, p["sender"], p["provider"])
				err = c.do(l, p, cid)
				if c.wantErr != nil {
					if !errors.Is(err, c.wantErr) {
						t.Fatalf("err = %v, want %v", err, c.wantErr)
					}
					t.Logf("refused: %v", err)
					if diff := cmp.Diff(before, ledgertest.Balances(t, l, p["sender"], p["provider"])); diff != "" {
						t.Errorf("a refused move changed balances (-before +after):\n%s", diff)
					}
					if diff := cmp.Diff(hist0, ledgertest.HistoryLens(t, l, p["sender"], p["provider"])); diff != "" {
						t.Errorf("a refused move wrote history (-before +after):\n%s", diff)
					}
					ledgertest.Conserved(t, l)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff([]string{c.want}, ledgertest.Balances(t, l, p["sender"])); diff != "" {
					t.Errorf("sender after (-want +got):\n%s", diff)
				}
				if a, err := pays(l).AppPaymentByID(ctx, p["sender"], cid); err != nil || !a.Contract.Archived {
					t.Errorf("after the move: %+v, %v; want it archived", a.Contract, err)
				}
				ledgertest.Conserved(t, l)
			})
		}
	})
}

func move(l *ledger.Ledger, actor coin.PartyID, cid coin.ContractID, m apppayments.AcceptedAppPaymentMove) error {
	_, err := pays(l).MoveAcceptedAppPayment(context.Background(), []coin.PartyID{actor}, cid, m, commands.Command{})
	return err
}

// TestAppPaymentRequestRefusals: a bad request is refused with what is
// wrong, and creates nothing.
func TestAppPaymentRequestRefusals(t *testing.T) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		sender, provider := ledgertest.Party(t, l), ledgertest.Party(t, l)
		now := clock.Now()
		cases := map[string]struct {
			mut  func(p *apppayments.AppPaymentRequest)
			want string
		}{
			"USD unit":     {func(p *apppayments.AppPaymentRequest) { p.ReceiverAmounts[0].Amount.Unit = "USDUnit" }, "CC only"},
			"zero amount":  {func(p *apppayments.AppPaymentRequest) { p.ReceiverAmounts[0].Amount.Amount = coin.Zero }, "greater than 0"},
			"no receivers": {func(p *apppayments.AppPaymentRequest) { p.ReceiverAmounts = nil }, "1 to 16 receivers"},
			"17 receivers": {func(p *apppayments.AppPaymentRequest) {
				for len(p.ReceiverAmounts) < 17 {
					p.ReceiverAmounts = append(p.ReceiverAmounts, p.ReceiverAmounts[0])
				}
			}, "1 to 16 receivers"},
			"long description":           {func(p *apppayments.AppPaymentRequest) { p.Description = strings.Repeat("x", 280) }, "shorter than 280"},
			"expired":                    {func(p *apppayments.AppPaymentRequest) { p.ExpiresAt = ledger.FormatTime(now) }, "in the future"},
			"bad time":                   {func(p *apppayments.AppPaymentRequest) { p.ExpiresAt = "soon" }, "ISO 8601"},
			"unknown receiver":           {func(p *apppayments.AppPaymentRequest) { p.ReceiverAmounts[0].Receiver = "nobody::1220ab" }, "nobody"},
			"other dso":                  {func(p *apppayments.AppPaymentRequest) { p.DSO = provider }, "DSO"},
			"not signed by the receiver": {func(p *apppayments.AppPaymentRequest) { p.ReceiverAmounts[0].Receiver = sender }, "authority"},
		}
		for name, c := range cases {
			req := paymentRequest(sender, provider, now, provider, "10")
			c.mut(&req)
			_, err := pays(l).RequestAppPayment(ctx, []coin.PartyID{provider}, req, commands.Command{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: err = %v, want one saying %q", name, err, c.want)
			}
		}
		if got, err := pays(l).AppPaymentRequestsOf(ctx, sender); err != nil || len(got) != 0 {
			t.Errorf("refusals created %d requests (%v)", len(got), err)
		}
	})
}

// TestExpireAppPayments: the expiry automation ends requests past their
// expiry and accepted payments past their lock's, only those, and the
// locked coin returns to the sender exactly; a deduplicated request is
// created once.
func TestExpireAppPayments(t *testing.T) {
	forEachEngineFees(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		sender, provider := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, sender, "100")
		open := paymentRequest(sender, provider, clock.Now(), provider, "10")
		if _, err := pays(l).RequestAppPayment(ctx, []coin.PartyID{provider}, open, commands.Command{Key: "cmd-1"}); err != nil {
			t.Fatal(err)
		}
		if _, err := pays(l).RequestAppPayment(ctx, []coin.PartyID{provider}, open, commands.Command{Key: "cmd-1"}); !errors.Is(err, fault.ErrDuplicate) {
			t.Fatalf("second request with the same key = %v, want ErrDuplicate", err)
		}
		long := open
		long.ExpiresAt = ledger.FormatTime(clock.Now().Add(5 * time.Hour))
		toAccept, err := pays(l).RequestAppPayment(ctx, []coin.PartyID{provider}, long, commands.Command{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pays(l).RequestAppPayment(ctx, []coin.PartyID{provider}, long, commands.Command{}); err != nil {
			t.Fatal(err)
		}
		if _, err := pays(l).AcceptAppPayment(ctx, sender, toAccept.Created, commands.Command{}); err != nil {
			t.Fatal(err)
		}
		if n, err := pays(l).ExpireAppPayments(ctx); err != nil || n != 0 {
			t.Fatalf("expire before any deadline = %d, %v", n, err)
		}
		clock.Advance(2 * time.Hour)
		// The first request and the accepted payment; the later request stays.
		if n, err := pays(l).ExpireAppPayments(ctx); err != nil || n != 2 {
			t.Fatalf("expire = %d, %v; want 2", n, err)
		}
		if diff := cmp.Diff([]string{"unlocked=100.0000000000 locked=0.0000000000"}, ledgertest.Balances(t, l, sender)); diff != "" {
			t.Errorf("after expiry (-want +got):\n%s", diff)
		}
		if reqs, err := pays(l).AppPaymentRequestsOf(ctx, sender); err != nil || len(reqs) != 1 {
			t.Errorf("pending requests after expiry = %d, %v; want 1", len(reqs), err)
		}
		ledgertest.Conserved(t, l)
	})
}

// TestAppOriginRedirects: a request names its app's origin at the end of
// its description, and only URLs of exactly that origin are redirect
// targets.
func TestAppOriginRedirects(t *testing.T) {
	for desc, want := range map[string][2]string{
		"a coffee origin=https://shop.example":          {"a coffee", "https://shop.example"},
		"origin=HTTP://Shop.Example:80":                 {"", "http://shop.example"},
		"a coffee origin=https://shop.example:8443":     {"a coffee", "https://shop.example:8443"},
		"a coffee origin=https://shop.example/path":     {"a coffee origin=https://shop.example/path", ""},
		"a coffee origin=javascript:alert(1)":           {"a coffee origin=javascript:alert(1)", ""},
		"a coffee xorigin=https://shop.example":         {"a coffee xorigin=https://shop.example", ""},
		"a coffee":                                      {"a coffee", ""},
		"a coffee origin=https://user@shop.example":     {"a coffee origin=https://user@shop.example", ""},
		"a coffee origin=https://shop.example?q=1":      {"a coffee origin=https://shop.example?q=1", ""},
		"a coffee origin=https://shop.example#fragment": {"a coffee origin=https://shop.example#fragment", ""},
	} {
		text, origin := payments.AppOrigin(desc)
		if text != want[0] || origin != want[1] {
			t.Errorf("AppOrigin(%q) = %q, %q; want %q, %q", desc, text, origin, want[0], want[1])
		}
	}
	const o = "https://shop.example"
	for target, want := range map[string]bool{
		"https://shop.example/done?x=1":           true,
		"https://SHOP.example:443/":               true,
		"https://shop.example.evil.test/":         false,
		"https://evil.test/?https://shop.example": false,
		"//shop.example/done":                     false,
		"/done":                                   false,
		"http://shop.example/":                    false,
		"https://shop.example@evil.test/":         false,
		"https://shop.example:444/":               false,
		"javascript:alert(1)":                     false,
		"https://shop.example\\@evil.test/":       false,
	} {
		if got := payments.RedirectAllowed(o, target); got != want {
			t.Errorf("RedirectAllowed(%q, %q) = %v, want %v", o, target, got, want)
		}
	}
	if payments.RedirectAllowed("", "https://shop.example/") {
		t.Error("a request naming no origin allowed a redirect")
	}
}

// TestAppPaymentConcurrentAnswers: five accepts and a reject of one
// request at once: exactly one answer wins, the coin is locked at most
// once, and the others find the request ended.
func TestAppPaymentConcurrentAnswers(t *testing.T) {
	forEachEngineFees(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		sender, provider := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, sender, "100")
		req, err := pays(l).RequestAppPayment(ctx, []coin.PartyID{provider}, paymentRequest(sender, provider, clock.Now(), provider, "10"), commands.Command{})
		if err != nil {
			t.Fatal(err)
		}
		errs := make(chan error, 6)
		for i := range 6 {
			go func() {
				var err error
				if i == 5 {
					_, err = pays(l).RejectAppPayment(ctx, sender, req.Created, commands.Command{})
				} else {
					_, err = pays(l).AcceptAppPayment(ctx, sender, req.Created, commands.Command{})
				}
				errs <- err
			}()
		}
		won := 0
		for range 6 {
			switch err := <-errs; {
			case err == nil:
				won++
			case errors.Is(err, apppayments.ErrAppPaymentFinished):
			default:
				t.Errorf("answer: %v", err)
			}
		}
		if won != 1 {
			t.Fatalf("%d answers won, want 1", won)
		}
		b, err := l.Balance(ctx, sender)
		if err != nil {
			t.Fatal(err)
		}
		if total := b.EffectiveUnlocked.Add(b.EffectiveLocked); !total.Equal(coin.MustParse("100")) || b.EffectiveLocked.Cmp(coin.MustParse("20")) > 0 {
			t.Errorf("after the race: unlocked %s locked %s", b.EffectiveUnlocked, b.EffectiveLocked)
		}
		ledgertest.Conserved(t, l)
	})
}

// TestAppPaymentLockGone: an accepted payment whose locked coin expired
// as dust cannot be collected, and says so; its expiry still ends it.
func TestAppPaymentLockGone(t *testing.T) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		sender, provider := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, sender, "100")
		req, err := pays(l).RequestAppPayment(ctx, []coin.PartyID{provider}, paymentRequest(sender, provider, clock.Now(), provider, "0.0000001"), commands.Command{})
		if err != nil {
			t.Fatal(err)
		}
		acc, err := pays(l).AcceptAppPayment(ctx, sender, req.Created, commands.Command{})
		if err != nil {
			t.Fatal(err)
		}
		clock.Advance(2 * time.Hour)
		if _, err := devnet.New(l).AdvanceRounds(ctx, 150); err != nil {
			t.Fatal(err)
		}
		if b, err := l.Balance(ctx, sender); err != nil || !b.EffectiveLocked.IsZero() {
			t.Fatalf("the dust lock is still there: %+v, %v", b, err)
		}
		_, err = pays(l).MoveAcceptedAppPayment(ctx, []coin.PartyID{provider}, acc.Created, apppayments.AppPaymentCollect, commands.Command{})
		if !errors.Is(err, fault.ErrExpired) || !strings.Contains(err.Error(), "locked coin is gone") {
			t.Fatalf("collect = %v, want ErrExpired saying the coin is gone", err)
		}
		if n, err := pays(l).ExpireAppPayments(ctx); err != nil || n != 1 {
			t.Fatalf("expire = %d, %v; want 1", n, err)
		}
	})
}
