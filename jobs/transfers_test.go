package jobs_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/cmd/ccwallet/replicas"
	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/jobs"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/autotransfer"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/ccwallet/ccwallet/ledger/provider"
	"github.com/ccwallet/ccwallet/ledger/traffic"
	"github.com/ccwallet/ccwallet/ledger/workflows"
	"github.com/google/go-cmp/cmp"
)

// withClock runs fn on every engine with a settable ledger clock.
func withClock(t *testing.T, fn func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock)) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			t.Parallel()
			clock := ledgertest.NewClock()
			fn(t, ledgertest.New(t, e, ledgertest.Options{Clock: clock}), clock)
		})
	}
}

func balance(t *testing.T, l *ledger.Ledger, p coin.PartyID) string {
	t.Helper()
	b, err := l.Balance(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return "unlocked=" + b.EffectiveUnlocked.Short() + " locked=" + b.EffectiveLocked.Short()
}

// TestExpiryJobAtTheBoundary: an offer and an instruction expiring at T are
// still open a microsecond before T and end exactly at T; the instruction's
// locked coin returns to its sender.
func TestExpiryJobAtTheBoundary(t *testing.T) {
	withClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		sender, receiver := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, sender, "100")
		expiry := clock.Now().Add(10 * time.Minute)
		o, _, err := l.Offers().Create(ctx, ledger.OfferRequest{Sender: sender, Receiver: receiver, Amount: coin.MustParse("10"), ExpiresAt: expiry, TrackingID: "o-1"})
		if err != nil {
			t.Fatal(err)
		}
		ti, err := l.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: sender, Receiver: receiver, Amount: coin.MustParse("40"), ExecuteBefore: expiry})
		if err != nil {
			t.Fatal(err)
		}
		job := jobs.Expiry(workflows.New(l), jobs.DefaultExpiryInterval)
		state := func() []string {
			off, err := pending.New(l).Offer(ctx, sender, o.ContractID)
			if err != nil {
				t.Fatal(err)
			}
			in, err := pending.New(l).TransferInstructionByID(ctx, sender, ti.InstructionCID)
			if err != nil {
				t.Fatal(err)
			}
			return []string{off.Status + "/" + off.FailureKind, string(in.Status), balance(t, l, sender)}
		}
		clock.Advance(10*time.Minute - time.Microsecond)
		if err := job.Run(ctx); err != nil {
			t.Fatal(err)
		}
		// The lock is the 40 and its fee reserve: 4 × one round's holding fee.
		lock := coin.MustParse("40").Add(l.Rules().TransferLockReserve(coin.MustParse("40"), l.Rules().InitialPriceUSD, 10*time.Minute))
		want := "unlocked=" + coin.MustParse("100").Sub(lock).Short() + " locked=" + lock.Short()
		if diff := cmp.Diff([]string{"created/", "pending", want}, state()); diff != "" {
			t.Errorf("just before expiry (-want +got):\n%s", diff)
		}
		clock.Advance(time.Microsecond)
		if err := job.Run(ctx); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"failed/expired", "expired", "unlocked=100 locked=0"}, state()); diff != "" {
			t.Errorf("exactly at expiry (-want +got):\n%s", diff)
		}
		if _, err := l.Offers().Accept(ctx, receiver, o.ContractID); err == nil {
			t.Error("accepted an expired offer")
		}
		// Idempotent: a second run finds nothing.
		if err := job.Run(ctx); err != nil {
			t.Fatal(err)
		}
		if got := balance(t, l, receiver); got != "unlocked=0 locked=0" {
			t.Errorf("receiver %s", got)
		}
	})
}

// TestRenewalJob: renewed once inside the window, not twice, never after
// expiry.
func TestRenewalJob(t *testing.T) {
	withClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		receiver := ledgertest.Party(t, l)
		if _, _, err := l.Preapprovals().Create(ctx, receiver); err != nil {
			t.Fatal(err)
		}
		first, err := provider.New(l).Preapproval(ctx, receiver)
		if err != nil {
			t.Fatal(err)
		}
		job := jobs.PreapprovalRenewal(provider.New(l), jobs.DefaultRenewalInterval)
		run := func() ledger.Preapproval {
			t.Helper()
			if err := job.Run(ctx); err != nil {
				t.Fatal(err)
			}
			p, err := provider.New(l).LivePreapproval(ctx, receiver)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		clock.Advance(ledger.PreapprovalLifetime - ledger.PreapprovalRenewalWindow - time.Second)
		if p := run(); p.ContractID != first.ContractID {
			t.Errorf("renewed before the window: %+v", p)
		}
		clock.Advance(2 * time.Second) // inside the window
		renewed := run()
		if renewed.ContractID == first.ContractID || !renewed.ExpiresAt.Equal(first.ExpiresAt.Add(ledger.PreapprovalLifetime)) {
			t.Fatalf("not renewed inside the window: %+v (first %+v)", renewed, first)
		}
		if p := run(); p.ContractID != renewed.ContractID {
			t.Errorf("renewed twice: %+v", p)
		}
		// The provider paid the renewal fee, once.
		items, err := history.New(l).List(ctx, l.Operator(), history.Query{PageSize: history.MaxPage})
		if err != nil {
			t.Fatal(err)
		}
		var fees []string
		for _, it := range items {
			if it.Subtype == "TransferPreapprovalRenewal" {
				fees = append(fees, it.Amount.String())
			}
		}
		if len(fees) != 1 || !strings.HasPrefix(fees[0], "-") {
			t.Errorf("renewal fees paid by the provider = %v, want one negative amount", fees)
		}
		clock.Advance(renewed.ExpiresAt.Sub(clock.Now())) // exactly expired
		if p := run(); p.ContractID != renewed.ContractID {
			t.Errorf("renewed after expiry: %+v", p)
		}
	})
}

func TestAutomationBuildsWalletJobs(t *testing.T) {
	l := ledgertest.New(t, ledgertest.Engines[1])
	a, b := ledgertest.Party(t, l), ledgertest.Party(t, l)
	unknown := coin.PartyID("nobody::1220" + strings.Repeat("ab", 32))
	base := []string{"round-clock", "expire-transfers", "collect-rewards", "merge-holdings", "renew-preapprovals", "accept-preapproval-proposals", "subscriptions"}
	sweep := autotransfer.SweepConfig{Sender: a, Receiver: b, MaxBalanceUSD: coin.MustParse("10"), MinBalanceUSD: coin.MustParse("1")}
	tests := []struct {
		name  string
		cfg   jobs.Automation
		jobs  []string
		wantE string
	}{
		{"sweep, auto-accept, top-up", jobs.Automation{
			Sweeps:     []autotransfer.SweepConfig{sweep},
			AutoAccept: []jobs.AutoAcceptRule{{Receiver: b, From: []coin.PartyID{a}}},
			Topup:      traffic.TopupConfig{TargetThroughput: 20000, MinInterval: time.Minute},
		}, append(base[:7:7], "sweep-"+string(a), "auto-accept-"+string(b), "traffic-topup"), ""},
		{"disabled", jobs.Automation{Disabled: true, Sweeps: []autotransfer.SweepConfig{sweep}}, nil, ""},
		{"top-up throughput 0", jobs.Automation{Topup: traffic.TopupConfig{MinInterval: time.Minute}}, base, ""},
		{"sweep min above max", jobs.Automation{Sweeps: []autotransfer.SweepConfig{{Sender: a, Receiver: b, MaxBalanceUSD: coin.MustParse("1"), MinBalanceUSD: coin.MustParse("2")}}},
			nil, "walletSweep." + string(a) + ": minBalanceUSD 2 is greater than maxBalanceUSD 1"},
		{"sweep unknown receiver", jobs.Automation{Sweeps: []autotransfer.SweepConfig{{Sender: a, Receiver: unknown, MaxBalanceUSD: coin.MustParse("1")}}},
			nil, "walletSweep." + string(a) + ".receiver: no party"},
		{"sweep unknown sender", jobs.Automation{Sweeps: []autotransfer.SweepConfig{{Sender: unknown, Receiver: b, MaxBalanceUSD: coin.MustParse("1")}}},
			nil, "walletSweep." + string(unknown) + ": sender " + string(unknown) + " is not a party of this node"},
		{"auto-accept unknown receiver", jobs.Automation{AutoAccept: []jobs.AutoAcceptRule{{Receiver: unknown, From: []coin.PartyID{a}}}},
			nil, "autoAcceptTransfers." + string(unknown) + ": receiver"},
		{"top-up without interval", jobs.Automation{Topup: traffic.TopupConfig{TargetThroughput: 1}}, nil, "topup.minTopupInterval"},
	}
	for _, tt := range tests {
		js, err := jobs.Build(context.Background(), workflows.New(l), tt.cfg)
		if tt.wantE != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantE) {
				t.Errorf("%s: err = %v, want %q", tt.name, err, tt.wantE)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		var names []string
		for _, j := range js {
			names = append(names, j.Name)
		}
		if diff := cmp.Diff(tt.jobs, names); diff != "" {
			t.Errorf("%s: jobs (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestOnRunAndCheck: the OnRun hook sees every run; Check fails after
// MaxConsecutiveFailures failures in a row, recovers on success, and fails
// once the scheduler is stopped.
func TestOnRunAndCheck(t *testing.T) {
	leases := replicas.Leases(ledgertest.DB(t, ledgertest.Engines[1]))
	var mu sync.Mutex
	var calls []string
	fail := true
	ran := make(chan struct{}, 100)
	job := jobs.Job{Name: "flaky", Every: 20 * time.Millisecond, Lease: time.Millisecond, Run: func(context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		if fail {
			return errors.New("boom")
		}
		return nil
	}}
	s, err := jobs.New(leases, []jobs.Job{job}, jobs.Config{MaxConsecutiveFailures: 3, OnRun: func(name string, _ time.Duration, err error) {
		mu.Lock()
		calls = append(calls, name+":"+errString(err))
		mu.Unlock()
		ran <- struct{}{}
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Check(ctx); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("check before start = %v", err)
	}
	s.Start()
	for range 3 {
		<-ran
	}
	if err := s.Check(ctx); err == nil || !strings.Contains(err.Error(), "job flaky failed") || !strings.Contains(err.Error(), "boom") {
		t.Errorf("check after 3 failures = %v", err)
	}
	mu.Lock()
	fail = false
	mu.Unlock()
	for {
		<-ran
		mu.Lock()
		last := calls[len(calls)-1]
		mu.Unlock()
		if last == "flaky:" {
			break
		}
	}
	if err := s.Check(ctx); err != nil {
		t.Errorf("check after a success = %v", err)
	}
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(ctx); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("check after shutdown = %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) < 4 || calls[0] != "flaky:boom" {
		t.Errorf("OnRun calls = %v", calls)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestWalletJobsRunTheirAutomation runs the sweep, auto-accept and top-up
// jobs as the scheduler would, with the ledger's clock: a sweep exactly at
// maxBalanceUSD does nothing and one above it offers everything above
// minBalanceUSD; the auto-accept job takes that offer from a listed sender;
// the top-up job buys once per interval, and the next purchase waits for
// the interval to pass.
func TestWalletJobsRunTheirAutomation(t *testing.T) {
	withClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		sender, receiver := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, sender, "1000") // 5 USD at the initial price of 0.005
		a := jobs.Automation{
			Sweeps:     []autotransfer.SweepConfig{{Sender: sender, Receiver: receiver, MaxBalanceUSD: coin.MustParse("5"), MinBalanceUSD: coin.MustParse("1")}},
			AutoAccept: []jobs.AutoAcceptRule{{Receiver: receiver, From: []coin.PartyID{sender}}},
			Topup:      traffic.TopupConfig{TargetThroughput: 20000, MinInterval: time.Minute},
		}
		js, err := jobs.Build(ctx, workflows.New(l), a)
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]jobs.Job{}
		for _, j := range js {
			byName[j.Name] = j
		}
		run := func(name string) {
			t.Helper()
			j, ok := byName[name]
			if !ok {
				t.Fatalf("no job %s in %v", name, js)
			}
			if err := j.Run(ctx); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		sweep, accept := "sweep-"+string(sender), "auto-accept-"+string(receiver)

		run(sweep) // exactly at the maximum: nothing
		run(accept)
		if diff := cmp.Diff([]string{"unlocked=1000 locked=0", "unlocked=0 locked=0"},
			[]string{balance(t, l, sender), balance(t, l, receiver)}); diff != "" {
			t.Errorf("at the maximum (-want +got):\n%s", diff)
		}
		ledgertest.Mint(t, l, sender, "1") // 5.005 USD: above
		run(sweep)
		run(accept)
		if diff := cmp.Diff([]string{"unlocked=200 locked=0", "unlocked=801 locked=0"},
			[]string{balance(t, l, sender), balance(t, l, receiver)}); diff != "" {
			t.Errorf("above the maximum, swept and auto-accepted (-want +got):\n%s", diff)
		}

		purchases := func() int64 {
			t.Helper()
			s, err := traffic.New(l).TrafficStatus(ctx, l.Operator())
			if err != nil {
				t.Fatal(err)
			}
			return s.NumPurchases
		}
		run("traffic-topup") // devnet: taps the operator's missing coin, then buys
		run("traffic-topup")
		if n := purchases(); n != 1 {
			t.Fatalf("purchases after two runs in one instant = %d, want 1", n)
		}
		clock.Advance(time.Minute - time.Microsecond)
		run("traffic-topup")
		if n := purchases(); n != 1 {
			t.Errorf("purchases just inside the interval = %d, want 1", n)
		}
	})
}
