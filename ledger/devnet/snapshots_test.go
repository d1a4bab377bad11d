package devnet_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/store"
)

// TestSnapshotRestore: a restore brings back the snapshot's balances,
// users and parties, forgets what the ledger cached of the later state,
// and the network takes writes after it with conservation holding.
func TestSnapshotRestore(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		dev := devnet.New(l)
		alice := ledgertest.Party(t, l)
		ledgertest.Mint(t, l, alice, "100")
		before := ledgertest.Conserved(t, l)
		snap, err := dev.Snapshot(ctx, "base")
		if err != nil {
			t.Fatal(err)
		}
		if snap.Name != "base" || snap.Bytes <= 0 || snap.CreatedAt.IsZero() {
			t.Errorf("snapshot = %+v", snap)
		}

		// After the snapshot: more coin, a new user (read, so cached),
		// a transfer to it.
		ledgertest.Mint(t, l, alice, "50")
		carol, err := users.Of(l).Onboard(ctx, "carol", "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := users.Of(l).PartyOf(ctx, "carol"); err != nil {
			t.Fatal(err)
		}
		if err := l.KnownParty(ctx, carol); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Transfer(ctx, ledger.TransferRequest{Sender: alice, Receiver: carol, Amount: coin.MustParse("10")}); err != nil {
			t.Fatal(err)
		}

		if _, err := l.DB().StableEnd(ctx); err != nil { // the process now knows the later end
			t.Fatal(err)
		}
		if err := dev.Restore(ctx, "base"); err != nil {
			t.Fatalf("restore: %v", err)
		}
		// The end known without a read is the restored network's, not
		// the later one: a completions stream from it would skip what
		// commits below it.
		if end, err := store.LedgerEnd(ctx, l.DB()); err != nil {
			t.Fatal(err)
		} else if known := l.DB().KnownEnd(); known > end {
			t.Errorf("known end %d after the restore, past the restored end %d", known, end)
		}
		b, err := l.Balance(ctx, alice)
		if err != nil {
			t.Fatal(err)
		}
		if b.Count != 1 || b.EffectiveUnlocked.Cmp(coin.MustParse("100")) > 0 || b.EffectiveUnlocked.Cmp(coin.MustParse("99")) < 0 {
			t.Errorf("alice after restore = %+v; want the snapshot's one holding of 100", b)
		}
		if _, err := users.Of(l).PartyOf(ctx, "carol"); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("carol after restore: %v; want not found (the user cache forgotten)", err)
		}
		if err := l.KnownParty(ctx, carol); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("carol's party after restore: %v; want not found (known parties forgotten)", err)
		}
		if got := ledgertest.Conserved(t, l); fmt.Sprint(got) != fmt.Sprint(before) {
			t.Errorf("supply after restore = %+v; want the snapshot's %+v", got, before)
		}
		// Writes after the restore: onboarding again, minting, a transfer
		// (offsets drawn after the snapshot's last one).
		carol2, err := users.Of(l).Onboard(ctx, "carol", "")
		if err != nil {
			t.Fatalf("onboard after restore: %v", err)
		}
		ledgertest.Mint(t, l, alice, "5")
		if _, err := l.Transfer(ctx, ledger.TransferRequest{Sender: alice, Receiver: carol2, Amount: coin.MustParse("3")}); err != nil {
			t.Fatalf("transfer after restore: %v", err)
		}
		ledgertest.Conserved(t, l)
	})
}

// TestSnapshotRestoreTwice: one snapshot serves many restores, and a
// later snapshot does not disturb an earlier one.
func TestSnapshotRestoreTwice(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		restore := ledgertest.Snapshot(t, l)
		alice := ledgertest.Party(t, l)
		ledgertest.Mint(t, l, alice, "7")
		restore(t)
		if err := l.KnownParty(ctx, alice); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("alice after the first restore: %v; want not found", err)
		}
		bob := ledgertest.Party(t, l)
		ledgertest.Mint(t, l, bob, "3")
		restore(t)
		if err := l.KnownParty(ctx, bob); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("bob after the second restore: %v; want not found", err)
		}
		ledgertest.Conserved(t, l)
	})
}

func TestSnapshotNames(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		dev := devnet.New(l)
		for _, name := range []string{"", "../x", "a/b", "..", ".hidden", "UPPER", "a b", "a.db", `a"b`, "x;drop", strings.Repeat("a", devnet.SnapshotNameMax+1), "é"} {
			if _, err := dev.Snapshot(ctx, name); !fault.IsValidation(err) {
				t.Errorf("snapshot %q: %v; want a validation error", name, err)
			}
			if err := dev.Restore(ctx, name); !fault.IsValidation(err) {
				t.Errorf("restore %q: %v; want a validation error", name, err)
			}
			if err := dev.DeleteSnapshot(ctx, name); !fault.IsValidation(err) {
				t.Errorf("delete %q: %v; want a validation error", name, err)
			}
		}
		if _, err := dev.Snapshot(ctx, strings.Repeat("a", devnet.SnapshotNameMax)); err != nil {
			t.Errorf("longest name: %v", err)
		}
		if _, err := dev.Snapshot(ctx, "s-1_x"); err != nil {
			t.Fatal(err)
		}
		if _, err := dev.Snapshot(ctx, "s-1_x"); !errors.Is(err, fault.ErrDuplicate) {
			t.Errorf("same name again: %v; want ErrDuplicate", err)
		}
		if err := dev.Restore(ctx, "missing"); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("restore missing: %v; want not found", err)
		}
		all, err := dev.Snapshots(ctx)
		if err != nil || len(all) != 2 || all[1].Name != "s-1_x" {
			t.Errorf("snapshots = %+v, %v", all, err)
		}
		if err := dev.DeleteSnapshot(ctx, "s-1_x"); err != nil {
			t.Fatal(err)
		}
		if err := dev.DeleteSnapshot(ctx, "s-1_x"); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("delete twice: %v; want not found", err)
		}
		if all, _ := dev.Snapshots(ctx); len(all) != 1 {
			t.Errorf("after delete: %+v", all)
		}
	})
}

// TestSnapshotProductionRefused: a production ledger has no Dev, so no
// snapshot, restore or reset, and admits every request.
func TestSnapshotProductionRefused(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			l, err := ledgertest.OpenLedger(context.Background(), ledgertest.DB(t, e), ledger.Config{AdminUsers: []string{"admin"}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.Dev(); !errors.Is(err, fault.ErrDisabled) {
				t.Fatalf("Dev on production = %v; want ErrDisabled", err)
			}
			done, err := l.Admit()
			if err != nil {
				t.Fatal(err)
			}
			done()
		})
	}
}

// TestReset: a reset leaves a new network of the same identity: the
// operator and DSO stay, the users and coin go, the admin can act.
func TestReset(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		op, dso := l.Operator(), l.DSO()
		alice := ledgertest.Party(t, l)
		ledgertest.Mint(t, l, alice, "100")
		if err := devnet.New(l).Reset(ctx); err != nil {
			t.Fatalf("reset: %v", err)
		}
		if l.Operator() != op || l.DSO() != dso {
			t.Errorf("identity changed: %s %s", l.Operator(), l.DSO())
		}
		if err := l.KnownParty(ctx, alice); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("alice after reset: %v; want not found", err)
		}
		if s := ledgertest.Conserved(t, l); !s.Minted.IsZero() {
			t.Errorf("minted after reset = %s; want 0", s.Minted)
		}
		admin, err := users.Of(l).Get(ctx, "admin")
		if err != nil || admin.Party != op {
			t.Errorf("admin after reset = %+v, %v", admin, err)
		}
		bob := ledgertest.Party(t, l)
		ledgertest.Mint(t, l, bob, "5")
		if _, err := devnet.New(l).AdvanceRounds(ctx, 2); err != nil {
			t.Fatalf("rounds after reset: %v", err)
		}
		ledgertest.Conserved(t, l)
	})
}

// TestRestoreWhileBusy: requests admitted before a restore finish first,
// those arriving during it are turned away with ErrRestoring, and a
// second restore at once is refused; the state after is the snapshot's.
func TestRestoreWhileBusy(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		dev := devnet.New(l)
		alice := ledgertest.Party(t, l)
		ledgertest.Mint(t, l, alice, "100")
		if _, err := dev.Snapshot(ctx, "base"); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		stop := make(chan struct{})
		var mu sync.Mutex
		var bad []error
		var refused, ran int
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					done, err := l.Admit()
					if err != nil {
						mu.Lock()
						if !errors.Is(err, ledger.ErrRestoring) {
							bad = append(bad, err)
						}
						refused++
						mu.Unlock()
						continue
					}
					_, err = l.Transfer(ctx, ledger.TransferRequest{Sender: alice, Receiver: l.Operator(), Amount: coin.MustParse("0.01")})
					done()
					mu.Lock()
					ran++
					if err != nil && !errors.Is(err, fault.ErrInsufficientFunds) {
						bad = append(bad, err)
					}
					mu.Unlock()
				}
			}()
		}
		for range 3 {
			if err := dev.Restore(ctx, "base"); err != nil {
				t.Errorf("restore: %v", err)
			}
		}
		close(stop)
		wg.Wait()
		if len(bad) > 0 {
			t.Errorf("%d requests failed otherwise than ErrRestoring, first: %v", len(bad), bad[0])
		}
		t.Logf("%d transfers ran, %d turned away", ran, refused)
		ledgertest.Conserved(t, l)
	})
}

// TestRestoreWaitsForRequests: a restore waits for the request admitted
// before it (which may hold what it read of the old state), turns new ones
// away meanwhile, refuses a second restore, and admits again after.
func TestRestoreWaitsForRequests(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		dev := devnet.New(l)
		if _, err := dev.Snapshot(ctx, "base"); err != nil {
			t.Fatal(err)
		}
		done, err := l.Admit()
		if err != nil {
			t.Fatal(err)
		}
		restored := make(chan error, 1)
		go func() { restored <- dev.Restore(ctx, "base") }()
		// Wait until the restore has closed the gate.
		for {
			d, err := l.Admit()
			if err != nil {
				if !errors.Is(err, ledger.ErrRestoring) {
					t.Fatalf("admit during restore: %v; want ErrRestoring", err)
				}
				break
			}
			d()
			time.Sleep(time.Millisecond)
		}
		if err := dev.Restore(ctx, "base"); !errors.Is(err, fault.ErrConflict) {
			t.Errorf("second restore at once: %v; want a conflict", err)
		}
		select {
		case err := <-restored:
			t.Fatalf("restore finished while a request was in flight: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
		done()
		if err := <-restored; err != nil {
			t.Fatalf("restore: %v", err)
		}
		d, err := l.Admit()
		if err != nil {
			t.Fatalf("admit after restore: %v", err)
		}
		d()
	})
}

// TestSnapshotLimit: past the most snapshots kept a new one is refused
// with words, and deleting one makes room.
func TestSnapshotLimit(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		dev := devnet.New(l)
		devnet.SetMaxSnapshots(dev, 2)
		for _, n := range []string{"a", "b"} {
			if _, err := dev.Snapshot(ctx, n); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := dev.Snapshot(ctx, "c"); !errors.Is(err, fault.ErrConflict) || !strings.Contains(err.Error(), "delete some") {
			t.Fatalf("third snapshot: %v; want a conflict saying to delete some", err)
		}
		if _, err := dev.Snapshot(ctx, "a"); !errors.Is(err, fault.ErrDuplicate) {
			t.Errorf("an existing name at the limit: %v; want ErrDuplicate", err)
		}
		if err := dev.DeleteSnapshot(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if _, err := dev.Snapshot(ctx, "c"); err != nil {
			t.Errorf("after a delete: %v", err)
		}
	})
}
