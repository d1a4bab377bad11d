package store_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// TestPreparedReads: the reads a transfer makes through statements
// prepared per connection on Postgres (ActiveSynchronizers,
// LiveTransferPreapproval, UserByName, UserRightsOf) answer as their bun
// queries do on SQLite, from the pool and inside a transaction: archived
// rows left out, unknown ids absent, a receiver without a live
// preapproval and an unknown user not found, a user's empty install id
// and rights in their order.
func TestPreparedReads(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			ctx := context.Background()
			db := ledgertest.DB(t, e)
			now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
			archived := int64(2)
			cs := []store.Contract{
				{ContractID: "00live", TemplateID: "T", Payload: "{}", SynchronizerID: "sync::a", CreatedOffset: 1, CreatedAt: now},
				{ContractID: "00other", TemplateID: "T", Payload: "{}", SynchronizerID: "sync::b", CreatedOffset: 1, CreatedAt: now},
				{ContractID: "00gone", TemplateID: "T", Payload: "{}", SynchronizerID: "sync::a", CreatedOffset: 1, ArchivedOffset: &archived, CreatedAt: now},
			}
			if err := store.InsertContracts(ctx, db, cs); err != nil {
				t.Fatal(err)
			}
			old := &store.TransferPreapproval{ContractID: "00pre-old", Receiver: "bob::1", Provider: "op::1",
				ValidFrom: now.Add(-2 * time.Hour), LastRenewedAt: now.Add(-2 * time.Hour), ExpiresAt: now.Add(time.Hour)}
			live := &store.TransferPreapproval{ContractID: "00pre-live", Receiver: "bob::1", Provider: "op::1",
				ValidFrom: now, LastRenewedAt: now, ExpiresAt: now.Add(24 * time.Hour)}
			if err := store.InsertTransferPreapproval(ctx, db, old); err != nil {
				t.Fatal(err)
			}
			if err := store.ArchiveTransferPreapproval(ctx, db, old.ContractID, now); err != nil {
				t.Fatal(err)
			}
			if err := store.InsertTransferPreapproval(ctx, db, live); err != nil {
				t.Fatal(err)
			}
			for _, p := range []coin.PartyID{"alice::1", "bob::1"} {
				if err := store.InsertParty(ctx, db, &store.Party{PartyID: p, Hint: "h", Kind: "local", CreatedAt: now}); err != nil {
					t.Fatal(err)
				}
			}
			alice := &store.User{Name: "alice", PartyID: "alice::1", CreatedAt: now}
			bob := &store.User{Name: "bob", PartyID: "bob::1", IsAdmin: true, InstallCID: "00install", CreatedAt: now,
				OffboardedAt: bun.NullTime{Time: now.Add(time.Hour)}}
			for _, u := range []*store.User{alice, bob} {
				if err := store.InsertUser(ctx, db, u); err != nil {
					t.Fatal(err)
				}
			}
			rights := []store.UserRight{{UserName: "alice", Kind: "CanReadAs", Party: "bob::1", Granted: true},
				{UserName: "alice", Kind: "CanActAs", Party: "alice::1", Granted: false}}
			for i := range rights {
				if err := store.PutUserRight(ctx, db, &rights[i]); err != nil {
					t.Fatal(err)
				}
			}
			check := func(t *testing.T, q bun.IDB) {
				for _, want := range []*store.User{alice, bob} {
					u, err := store.UserByName(ctx, q, want.Name)
					if err != nil || u.Name != want.Name || u.PartyID != want.PartyID || u.IsAdmin != want.IsAdmin ||
						u.InstallCID != want.InstallCID || !u.CreatedAt.Equal(want.CreatedAt) || !u.OffboardedAt.Time.Equal(want.OffboardedAt.Time) {
						t.Errorf("UserByName(%s) = %+v, %v; want %+v", want.Name, u, err, want)
					}
				}
				if _, err := store.UserByName(ctx, q, "carol"); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("UserByName of an unknown user: %v; want ErrNotFound", err)
				}
				rs, err := store.UserRightsOf(ctx, q, "alice")
				if want := []store.UserRight{rights[1], rights[0]}; err != nil || !slices.Equal(rs, want) {
					t.Errorf("UserRightsOf(alice) = %+v, %v; want %+v", rs, err, want)
				}
				if rs, err := store.UserRightsOf(ctx, q, "bob"); err != nil || len(rs) != 0 {
					t.Errorf("UserRightsOf(bob) = %+v, %v; want none", rs, err)
				}
				got, err := store.ActiveSynchronizers(ctx, q, []coin.ContractID{"00live", "00gone", "00unknown", "00other"})
				want := map[coin.ContractID]string{"00live": "sync::a", "00other": "sync::b"}
				if err != nil || !maps.Equal(got, want) {
					t.Errorf("ActiveSynchronizers = %v, %v; want %v", got, err, want)
				}
				if got, err := store.ActiveSynchronizers(ctx, q, nil); err != nil || len(got) != 0 {
					t.Errorf("ActiveSynchronizers of none = %v, %v; want empty", got, err)
				}
				p, err := store.LiveTransferPreapproval(ctx, q, "bob::1")
				if err != nil {
					t.Fatal(err)
				}
				if p.ContractID != live.ContractID || p.Receiver != live.Receiver || p.Provider != live.Provider ||
					!p.ValidFrom.Equal(live.ValidFrom) || !p.LastRenewedAt.Equal(live.LastRenewedAt) ||
					!p.ExpiresAt.Equal(live.ExpiresAt) || !p.ArchivedAt.IsZero() {
					t.Errorf("LiveTransferPreapproval = %+v; want %+v", p, live)
				}
				if _, err := store.LiveTransferPreapproval(ctx, q, "carol::1"); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("LiveTransferPreapproval of a receiver without one: %v; want ErrNotFound", err)
				}
			}
			t.Run("pool", func(t *testing.T) { check(t, db) })
			t.Run("transaction", func(t *testing.T) {
				if err := db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
					check(t, tx)
					if e != store.Postgres {
						return nil
					}
					// Both went as statements prepared on this connection.
					var n int
					err := tx.NewRaw(`SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE '%transfer_preapprovals WHERE receiver = $1%'
						OR statement LIKE '%contract_id = ANY($1::text[]) AND archived_offset IS NULL%'
						OR statement LIKE '%FROM users WHERE name = $1%' OR statement LIKE '%FROM user_rights WHERE user_name = $1%'`).Scan(ctx, &n)
					if err != nil || n != 4 {
						t.Errorf("%d of the four reads prepared on the transaction's connection (%v)", n, err)
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			})
		})
	}
}
