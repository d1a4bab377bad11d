package views

import "time"

// Rewards is the rewards page.
type Rewards struct {
	Page
	Rows []RewardRow
	// NewestHref and OlderHref are the pager's links ("" for none).
	NewestHref, OlderHref string
	// Partial: the oldest round shown has more rewards than a page reads.
	Partial bool
}

// RewardRow is one round's rewards of one kind in one state.
type RewardRow struct {
	Round   int64
	Kind    string
	Coupons int
	// Amount is the exact amount in CC the coupons mint (or minted).
	Amount    string
	Collected bool
	// UpdateID is the collecting update, CollectedAt its time (zero when
	// pending or pruned).
	UpdateID    string
	CollectedAt time.Time
}
