package ledger_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestTxMint: Tx.Mint issues new coin into a holding of its owner and the
// update counts it as minted, so the supply grows by it and conservation
// holds (ledgertest.New checks it again when the test ends); the same
// holding made by NewHolding, with no coin coming from anywhere, breaks
// conservation. Mint before Begin is a workflow's bug: it panics.
func TestTxMint(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		p := ledgertest.Party(t, l)
		before := ledgertest.Conserved(t, l)
		amount := coin.MustParse("2.5")
		var cid coin.ContractID
		err := l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
			if err := x.Begin(ctx, "mint-test", p); err != nil {
				return err
			}
			cid = x.Mint(p, amount)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if cid == "" {
			t.Error("Mint returned no contract")
		}
		b, err := l.Balance(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if !b.EffectiveUnlocked.Equal(amount) || b.Count != 1 {
			t.Errorf("balance %s in %d holdings, want %s in 1", b.EffectiveUnlocked, b.Count, amount)
		}
		after := ledgertest.Conserved(t, l)
		if !after.Minted.Equal(before.Minted.Add(amount)) || !after.Live.Equal(before.Live.Add(amount)) || !after.Burned.Equal(before.Burned) {
			t.Errorf("supply %+v after minting %s, before %+v", after, amount, before)
		}

		func() {
			defer func() {
				if recover() == nil {
					t.Error("Mint before Begin did not panic")
				}
			}()
			_ = l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
				x.Mint(p, amount)
				return nil
			})
		}()
	})
}

// TestTxNewHoldingFromNowhereIsNotConserved is TestTxMint's other side: a
// holding no coin came to breaks conservation, which the audit reports.
func TestTxNewHoldingFromNowhereIsNotConserved(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			ctx := context.Background()
			l := ledgertest.Open(t, ledgertest.DBURL(t, e), ledgertest.Options{}) // no audit at the end
			p := ledgertest.Party(t, l)
			err := l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
				if err := x.Begin(ctx, "mint-test", p); err != nil {
					return err
				}
				x.NewHolding(p, coin.MustParse("2.5"), nil)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.CheckConservation(ctx); !errors.Is(err, ledger.ErrNotConserved) {
				t.Errorf("a holding from nowhere: %v, want ErrNotConserved", err)
			}
		})
	}
}
