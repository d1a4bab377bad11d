package store

import (
	"context"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/uptrace/bun"
)

// SubscriptionApp is a row of subscription_apps: what a subscription's
// Daml contracts do not hold. Origins are space-separated.
type SubscriptionApp struct {
	bun.BaseModel `bun:"table:subscription_apps"`

	Reference coin.ContractID `bun:"reference,pk"`
	Sender    coin.PartyID    `bun:"sender"`
	App       string          `bun:"app"`
	Origins   string          `bun:"origins"`
	Unpaid    string          `bun:"unpaid"`
	UnpaidAt  bun.NullTime    `bun:"unpaid_at"`
}

// InsertSubscriptionApp stores a new subscription's row.
func InsertSubscriptionApp(ctx context.Context, db bun.IDB, s *SubscriptionApp) error {
	if _, err := db.NewInsert().Model(s).Exec(ctx); err != nil {
		return fmt.Errorf("insert subscription %s: %w", s.Reference, Normalize(err))
	}
	return nil
}

// SubscriptionAppByRef loads a subscription's row.
func SubscriptionAppByRef(ctx context.Context, db bun.IDB, ref coin.ContractID) (*SubscriptionApp, error) {
	s := new(SubscriptionApp)
	if err := db.NewSelect().Model(s).Where("reference = ?", ref).Scan(ctx); err != nil {
		return nil, fmt.Errorf("subscription %s: %w", ref, Normalize(err))
	}
	return s, nil
}

// SubscriptionAppsOf lists sender's subscriptions' rows.
func SubscriptionAppsOf(ctx context.Context, db bun.IDB, sender coin.PartyID) ([]SubscriptionApp, error) {
	var out []SubscriptionApp
	if err := db.NewSelect().Model(&out).Where("sender = ?", sender).Order("reference").Scan(ctx); err != nil {
		return nil, fmt.Errorf("subscriptions of %s: %w", sender, Normalize(err))
	}
	return out, nil
}

// SetSubscriptionUnpaid records (or, with an empty note, clears) the
// payment automation's notice on a subscription.
func SetSubscriptionUnpaid(ctx context.Context, db bun.IDB, ref coin.ContractID, note string, at time.Time) error {
	q := db.NewUpdate().Table("subscription_apps").Set("unpaid = ?", note).Where("reference = ?", ref)
	if note == "" {
		q = q.Set("unpaid_at = NULL")
	} else {
		q = q.Set("unpaid_at = ?", at)
	}
	if _, err := q.Exec(ctx); err != nil {
		return fmt.Errorf("subscription %s: %w", ref, Normalize(err))
	}
	return nil
}
