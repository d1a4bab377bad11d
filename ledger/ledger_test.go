package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/userrights"
	"github.com/ccwallet/ccwallet/ledger/users"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }

func forEachEngine(t *testing.T, fn func(t *testing.T, l *ledger.Ledger)) {
	ledgertest.ForEachEngine(t, fn)
}

// forEachEngineClock is forEachEngine with a settable clock.
func forEachEngineClock(t *testing.T, fn func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock)) {
	ledgertest.ForEachEngineClock(t, fn)
}

func TestBootstrapAndOnboarding(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		admin, err := users.Of(l).Get(ctx, "admin")
		if err != nil || admin.Party != l.Operator() || !admin.IsAdmin || !admin.WalletInstalled {
			t.Fatalf("admin = %+v, %v; want bound to operator %s", admin, err, l.Operator())
		}
		if _, err := coin.ParsePartyID(string(l.Operator())); err != nil {
			t.Fatalf("operator party: %v", err)
		}
		p, err := users.Of(l).Onboard(ctx, "alice@example.com", "")
		if err != nil {
			t.Fatal(err)
		}
		if p.Hint() != "alice_0040example_002ecom" || p.Namespace() != l.Operator().Namespace() {
			t.Errorf("party = %s", p)
		}
		again, err := users.Of(l).Onboard(ctx, "alice@example.com", "")
		if err != nil || again != p {
			t.Errorf("onboarding twice = %s, %v; want the same party", again, err)
		}
		if err := userrights.New(l).Offboard(ctx, "alice@example.com"); err != nil {
			t.Fatal(err)
		}
		if u, _ := users.Of(l).Get(ctx, "alice@example.com"); u.Onboarded || u.WalletInstalled {
			t.Errorf("after offboard: %+v", u)
		}
		if err := userrights.New(l).Offboard(ctx, "alice@example.com"); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("offboard twice = %v, want ErrNotFound", err)
		}
		if back, err := users.Of(l).Onboard(ctx, "alice@example.com", ""); err != nil || back != p {
			t.Errorf("re-onboard = %s, %v; want the old party back", back, err)
		}
		if err := userrights.New(l).Offboard(ctx, "admin"); !errors.Is(err, fault.ErrConflict) {
			t.Errorf("offboard admin = %v, want ErrConflict", err)
		}
		if _, err := users.Of(l).Onboard(ctx, "bob", coin.PartyID("stranger::"+l.Operator().Namespace())); err == nil {
			t.Error("onboarding with an unknown party succeeded")
		}
	})
}

func TestTransfer(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		a, b := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, a, "5")
		ledgertest.Mint(t, l, a, "7")
		res, err := l.Transfer(ctx, ledger.TransferRequest{Sender: a, Receiver: b, Amount: coin.MustParse("8"), Description: "rent"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Inputs) != 2 || res.Change == "" {
			t.Errorf("result = %+v; want 2 inputs and change", res)
		}
		ba, _ := l.Balance(ctx, a)
		bb, _ := l.Balance(ctx, b)
		if !ba.EffectiveUnlocked.Equal(coin.MustParse("4")) || !bb.EffectiveUnlocked.Equal(coin.MustParse("8")) {
			t.Errorf("balances = %s, %s; want 4, 8", ba.EffectiveUnlocked, bb.EffectiveUnlocked)
		}
		// A failed transfer changes nothing.
		before := ledgertest.Conserved(t, l)
		_, err = l.Transfer(ctx, ledger.TransferRequest{Sender: a, Receiver: b, Amount: coin.MustParse("4.0000000001")})
		if !errors.Is(err, fault.ErrInsufficientFunds) {
			t.Fatalf("overdraft = %v, want ErrInsufficientFunds", err)
		}
		if after := ledgertest.Conserved(t, l); !after.Live.Equal(before.Live) {
			t.Errorf("failed transfer changed supply: %s -> %s", before.Live, after.Live)
		}
		if _, err := l.Transfer(ctx, ledger.TransferRequest{Sender: a, Receiver: coin.PartyID("nobody::" + a.Namespace()), Amount: coin.MustParse("1")}); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("unknown receiver = %v, want ErrNotFound", err)
		}
		if _, err := l.Transfer(ctx, ledger.TransferRequest{Sender: a, Receiver: b, Amount: coin.MustParse("0")}); !fault.IsValidation(err) {
			t.Errorf("zero amount = %v, want a validation error", err)
		}
	})
}

// TestConcurrentTransfers runs 32 clients doing random transfers among 20
// parties whose holdings overlap; afterwards no holding was spent twice
// (every spend is a guarded delete) and the supply is conserved. The
// engines run side by side (each on its own database): SQLite's one writer
// keeps it to about one core. `make soak` (which CI runs after `make
// test`) runs 500 transfers per client, 16,000 per engine (about 200 s of
// package time on the 2-core machine); a plain `go test` runs 100 per
// client, the same races at a fifth of the time.
// CCWALLET_TRANSFERS_PER_CLIENT sets the number.
func TestConcurrentTransfers(t *testing.T) {
	const clients, parties = 32, 20
	perClient := 100
	if v, err := strconv.Atoi(os.Getenv("CCWALLET_TRANSFERS_PER_CLIENT")); err == nil && v > 0 {
		perClient = v
	}
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			t.Parallel()
			l := ledgertest.New(t, e)
			ctx := context.Background()
			ps := make([]coin.PartyID, parties)
			for i := range ps {
				ps[i] = ledgertest.Party(t, l)
				for range 3 {
					ledgertest.Mint(t, l, ps[i], "100")
				}
			}
			var ok, poor atomic.Int64
			var wg sync.WaitGroup
			errc := make(chan error, clients)
			for c := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(uint64(c), 42))
					for range perClient {
						s, r := ps[rng.IntN(parties)], ps[rng.IntN(parties)]
						amt := coin.FromInt(int64(rng.IntN(40) + 1)).Div(coin.FromInt(int64(rng.IntN(7) + 1)))
						_, err := l.Transfer(ctx, ledger.TransferRequest{Sender: s, Receiver: r, Amount: amt})
						switch {
						case err == nil:
							ok.Add(1)
						case errors.Is(err, fault.ErrInsufficientFunds):
							poor.Add(1)
						default:
							errc <- fmt.Errorf("transfer %s -> %s: %w", s, r, err)
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errc)
			for err := range errc {
				t.Error(err)
			}
			s := ledgertest.Conserved(t, l)
			if want := coin.FromInt(parties * 300); !s.Minted.Equal(want) {
				t.Errorf("minted = %s, want %s", s.Minted, want)
			}
			total := coin.Zero
			for _, p := range ps {
				b, err := l.Balance(ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				if b.EffectiveUnlocked.IsNegative() {
					t.Errorf("negative balance %s for %s", b.EffectiveUnlocked, p)
				}
				total = total.Add(b.EffectiveUnlocked).Add(b.EffectiveLocked)
			}
			// Holding fees only accrue across rounds; none passed here.
			if !total.Equal(s.Live) {
				t.Errorf("sum of balances %s != live supply %s", total, s.Live)
			}
			t.Logf("%s: %d transfers, %d refused for funds", e, ok.Load(), poor.Load())
			if ok.Load() < int64(clients*perClient/2) {
				t.Errorf("only %d of %d transfers succeeded", ok.Load(), clients*perClient)
			}
		})
	}
}
