package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/uptrace/bun"
)

// AcquireLease takes or renews the lease on name for holder until until.
// It succeeds when nobody holds the lease, when holder already holds it, or
// when the current lease expired before now; false means another holder
// has a live lease. One statement, the same on both engines.
func AcquireLease(ctx context.Context, db bun.IDB, name, holder string, now, until time.Time) (bool, error) {
	res, err := db.ExecContext(ctx, `INSERT INTO job_leases (name, holder, expires_at_ms) VALUES (?, ?, ?)
ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at_ms = excluded.expires_at_ms
WHERE job_leases.expires_at_ms <= ? OR job_leases.holder = excluded.holder`,
		name, holder, until.UnixMilli(), now.UnixMilli())
	if err != nil {
		return false, fmt.Errorf("acquire lease %s: %w", name, Normalize(err))
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// ReleaseLease ends holder's lease on name, if it still holds it.
func ReleaseLease(ctx context.Context, db bun.IDB, name, holder string) error {
	if _, err := db.ExecContext(ctx, "DELETE FROM job_leases WHERE name = ? AND holder = ?", name, holder); err != nil {
		return fmt.Errorf("release lease %s: %w", name, Normalize(err))
	}
	return nil
}

// OpenRounds lists the open rounds, oldest first.
func OpenRounds(ctx context.Context, db bun.IDB) ([]Round, error) {
	var rs []Round
	if err := db.NewSelect().Model(&rs).Where("closed_at IS NULL").Order("number").Scan(ctx); err != nil {
		return nil, fmt.Errorf("open rounds: %w", Normalize(err))
	}
	return rs, nil
}

// DustCandidates lists live holdings that may be dust at round at, in
// pages after the contract ID after. The filter is a floating-point
// estimate of the expiry round (created + amount/rate) with a round of
// margin, so the database skips most holdings; the caller decides exactly
// (ledger.IsDust). A zero rate never expires.
func DustCandidates(ctx context.Context, db bun.IDB, at coin.Round, after coin.ContractID, limit int) ([]Holding, error) {
	var hs []Holding
	err := db.NewSelect().Model(&hs).Where("created_round < ?", at).Where("contract_id > ?", after).
		Where("created_round + CAST(amount AS REAL) / NULLIF(CAST(rate AS REAL), 0) < ?", int64(at)+1).
		Order("contract_id").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("dust candidates at round %d: %w", at, Normalize(err))
	}
	return hs, nil
}

// DueRewardCoupons lists uncollected coupons of rounds before round, at
// most limit, oldest first; coupons of the beneficiaries in except are
// left out.
func DueRewardCoupons(ctx context.Context, db bun.IDB, before coin.Round, limit int, except ...coin.PartyID) ([]RewardCoupon, error) {
	return DueRewardCouponsOutside(ctx, db, before, limit, except, nil)
}

// DueRewardCouponsOutside is DueRewardCoupons also leaving out the
// beneficiaries whose party namespace is one of namespaces (another
// validator's parties).
func DueRewardCouponsOutside(ctx context.Context, db bun.IDB, before coin.Round, limit int, except []coin.PartyID, namespaces []string) ([]RewardCoupon, error) {
	var cs []RewardCoupon
	q := db.NewSelect().Model(&cs).Where("collected_at IS NULL").Where("round < ?", before)
	if len(except) > 0 {
		q = q.Where("beneficiary NOT IN (?)", bun.List(except))
	}
	for _, ns := range namespaces {
		q = q.Where("beneficiary NOT LIKE ?", "%::"+ns)
	}
	err := q.Order("beneficiary", "round", "contract_id").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("due reward coupons: %w", Normalize(err))
	}
	return cs, nil
}

// MarkCouponsCollected marks uncollected coupons collected at time at by
// the update at offset (their contracts' archive), guarded: ErrStale if
// any was collected meanwhile.
func MarkCouponsCollected(ctx context.Context, db bun.IDB, ids []coin.ContractID, at time.Time, offset int64) error {
	if len(ids) == 0 {
		return nil
	}
	res, err := db.NewUpdate().Table("reward_coupons").Set("collected_at = ?", at).Set("collected_offset = ?", offset).
		Where("contract_id IN (?)", bun.List(ids)).Where("collected_at IS NULL").Exec(ctx)
	if err != nil {
		return fmt.Errorf("collect coupons: %w", Normalize(err))
	}
	if n, _ := res.RowsAffected(); n != int64(len(ids)) {
		return fmt.Errorf("collect %d coupons, %d were uncollected: %w", len(ids), n, ErrStale)
	}
	return nil
}

// CountRewardCoupons counts coupons of a kind for a beneficiary in a round.
func CountRewardCoupons(ctx context.Context, db bun.IDB, kind string, beneficiary coin.PartyID, round coin.Round) (int, error) {
	n, err := db.NewSelect().Table("reward_coupons").Where("kind = ?", kind).Where("beneficiary = ?", beneficiary).
		Where("round = ?", round).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count reward coupons: %w", Normalize(err))
	}
	return int(n), nil
}

// TrafficInRound sums the traffic of updates submitted in a round.
func TrafficInRound(ctx context.Context, db bun.IDB, round coin.Round) (int64, error) {
	var n int64
	err := db.NewSelect().Table("updates").ColumnExpr("COALESCE(SUM(traffic_bytes), 0)").Where("round = ?", round).Scan(ctx, &n)
	if err != nil {
		return 0, fmt.Errorf("traffic in round %d: %w", round, Normalize(err))
	}
	return n, nil
}

// MergeDelegation is a row of merge_delegations.
type MergeDelegation struct {
	bun.BaseModel `bun:"table:merge_delegations"`

	ContractID  coin.ContractID `bun:"contract_id,pk"`
	Owner       coin.PartyID    `bun:"owner"`
	Operator    coin.PartyID    `bun:"operator"`
	Status      string          `bun:"status"`
	ProposalCID coin.ContractID `bun:"proposal_cid"`
	CreatedAt   time.Time       `bun:"created_at"`
	UpdatedAt   time.Time       `bun:"updated_at"`
}

// InsertMergeDelegation stores a proposal or delegation row.
func InsertMergeDelegation(ctx context.Context, db bun.IDB, m *MergeDelegation) error {
	if _, err := db.NewInsert().Model(m).Exec(ctx); err != nil {
		return fmt.Errorf("insert merge delegation: %w", Normalize(err))
	}
	return nil
}

// MergeDelegationByID loads a row by its contract ID.
func MergeDelegationByID(ctx context.Context, db bun.IDB, id coin.ContractID) (*MergeDelegation, error) {
	m := new(MergeDelegation)
	if err := db.NewSelect().Model(m).Where("contract_id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("merge delegation %s: %w", id, Normalize(err))
	}
	return m, nil
}

// MergeDelegationsOf lists an owner's rows in a status (all when empty).
func MergeDelegationsOf(ctx context.Context, db bun.IDB, owner coin.PartyID, status string) ([]MergeDelegation, error) {
	var ms []MergeDelegation
	q := db.NewSelect().Model(&ms).Order("created_at", "contract_id")
	if owner != "" {
		q = q.Where("owner = ?", owner)
	}
	if status != "" {
		q = q.Where("status = ?", status)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("merge delegations: %w", Normalize(err))
	}
	return ms, nil
}

// SetMergeDelegationStatus moves a row from status from to to, guarded:
// ErrStale when it is no longer in from.
func SetMergeDelegationStatus(ctx context.Context, db bun.IDB, id coin.ContractID, from, to string, at time.Time) error {
	res, err := db.NewUpdate().Table("merge_delegations").Set("status = ?", to).Set("updated_at = ?", at).
		Where("contract_id = ?", id).Where("status = ?", from).Exec(ctx)
	if err != nil {
		return fmt.Errorf("update merge delegation %s: %w", id, Normalize(err))
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("merge delegation %s is not %s: %w", id, from, ErrStale)
	}
	return nil
}

// OwnerHoldingCount is an owner and its number of unlocked holdings.
type OwnerHoldingCount struct {
	Owner coin.PartyID `bun:"owner"`
	Count int          `bun:"n"`
}

// MergeCandidatesAbove lists the owners with more than limit unlocked
// holdings that have an active merge delegation, are an onboarded user's
// party, or are one of also (the operator), most holdings first: the
// parties whose wallet the merge automation keeps at the merge target.
func MergeCandidatesAbove(ctx context.Context, db bun.IDB, limit int, also ...coin.PartyID) ([]OwnerHoldingCount, error) {
	var out []OwnerHoldingCount
	err := db.NewSelect().Table("holdings").ColumnExpr("owner, COUNT(*) AS n").
		Where("lock_holder IS NULL").
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			q = q.Where("owner IN (SELECT owner FROM merge_delegations WHERE status = 'active')").
				WhereOr("owner IN (SELECT party_id FROM users WHERE offboarded_at IS NULL)")
			if len(also) > 0 {
				q = q.WhereOr("owner IN (?)", bun.List(also))
			}
			return q
		}).
		Group("owner").Having("COUNT(*) > ?", limit).OrderExpr("n DESC, owner").Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("owners to merge: %w", Normalize(err))
	}
	return out, nil
}

// PartyOffboarded reports whether party belongs only to offboarded users:
// its wallet was closed (a party of no user at all is not).
func PartyOffboarded(ctx context.Context, db bun.IDB, party coin.PartyID) (bool, error) {
	var users []struct {
		Offboarded bool `bun:"offboarded"`
	}
	err := db.NewSelect().Table("users").ColumnExpr("offboarded_at IS NOT NULL AS offboarded").Where("party_id = ?", party).Scan(ctx, &users)
	if err != nil {
		return false, fmt.Errorf("users of %s: %w", party, Normalize(err))
	}
	for _, u := range users {
		if !u.Offboarded {
			return false, nil
		}
	}
	return len(users) > 0, nil
}

// PartyOnboarded reports whether party is an onboarded (not offboarded)
// user's party.
func PartyOnboarded(ctx context.Context, db bun.IDB, party coin.PartyID) (bool, error) {
	n, err := db.NewSelect().Table("users").Where("party_id = ?", party).Where("offboarded_at IS NULL").Count(ctx)
	if err != nil {
		return false, fmt.Errorf("users of %s: %w", party, Normalize(err))
	}
	return n > 0, nil
}

// UnlockedHoldingsOf lists up to limit (all when limit <= 0) unlocked
// holdings of owner in contract order.
func UnlockedHoldingsOf(ctx context.Context, db bun.IDB, owner coin.PartyID, limit int) ([]Holding, error) {
	var hs []Holding
	q := db.NewSelect().Model(&hs).Where("owner = ?", owner).Where("lock_holder IS NULL").Order("contract_id")
	if limit > 0 {
		q = q.Limit(int64(limit))
	}
	err := q.Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("holdings of %s: %w", owner, Normalize(err))
	}
	return hs, nil
}

// CountUnlockedHoldings counts an owner's unlocked holdings.
func CountUnlockedHoldings(ctx context.Context, db bun.IDB, owner coin.PartyID) (int, error) {
	n, err := db.NewSelect().Table("holdings").Where("owner = ?", owner).Where("lock_holder IS NULL").Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count holdings of %s: %w", owner, Normalize(err))
	}
	return int(n), nil
}

// PrunedTotals is the single row carrying pruned update-log totals.
type PrunedTotals struct {
	bun.BaseModel `bun:"table:pruned_totals"`

	ID         int64        `bun:"id,pk"`
	Minted     coin.Amount  `bun:"minted,type:text"`
	Burned     coin.Amount  `bun:"burned,type:text"`
	Updates    int64        `bun:"updates"`
	Contracts  int64        `bun:"contracts"`
	LastOffset int64        `bun:"last_offset"`
	PrunedAt   bun.NullTime `bun:"pruned_at"`
}

// LoadPrunedTotals reads the pruned totals.
func LoadPrunedTotals(ctx context.Context, db bun.IDB) (*PrunedTotals, error) {
	p := new(PrunedTotals)
	if err := db.NewSelect().Model(p).Where("id = 1").Scan(ctx); err != nil {
		return nil, fmt.Errorf("pruned totals: %w", Normalize(err))
	}
	return p, nil
}

// SavePrunedTotals rewrites the pruned totals.
func SavePrunedTotals(ctx context.Context, db bun.IDB, p *PrunedTotals) error {
	p.ID = 1
	if _, err := db.NewUpdate().Model(p).WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("save pruned totals: %w", Normalize(err))
	}
	return nil
}

// PrunedTraffic is the traffic use of a submitter's pruned updates, as
// the traffic meter left it (ledger/traffic's trafficMeter).
type PrunedTraffic struct {
	bun.BaseModel `bun:"table:pruned_traffic"`

	Submitter     string `bun:"submitter,pk"`
	Consumed      int64  `bun:"consumed"`
	ExtraConsumed int64  `bun:"extra_consumed"`
	WindowIndex   int64  `bun:"window_index"`
	WindowUsed    int64  `bun:"window_used"`
}

// PrunedTrafficOf reads submitter's pruned traffic: nothing pruned yet is
// a zero total with no window (WindowIndex -1).
func PrunedTrafficOf(ctx context.Context, db bun.IDB, submitter string) (*PrunedTraffic, error) {
	p := &PrunedTraffic{Submitter: submitter}
	err := db.NewSelect().Model(p).WherePK().Scan(ctx)
	if err = Normalize(err); errors.Is(err, ErrNotFound) {
		return &PrunedTraffic{Submitter: submitter, WindowIndex: -1}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pruned traffic of %s: %w", submitter, err)
	}
	return p, nil
}

// SavePrunedTraffic writes submitters' pruned traffic, inserting or
// replacing each row.
func SavePrunedTraffic(ctx context.Context, db bun.IDB, ps []PrunedTraffic) error {
	if len(ps) == 0 {
		return nil
	}
	_, err := db.NewInsert().Model(&ps).On("CONFLICT (submitter) DO UPDATE").
		Set("consumed = excluded.consumed, extra_consumed = excluded.extra_consumed, window_index = excluded.window_index, window_used = excluded.window_used").Exec(ctx)
	if err != nil {
		return fmt.Errorf("save pruned traffic: %w", Normalize(err))
	}
	return nil
}

// PrunableUpdates lists up to limit updates recorded before cutoff, oldest
// first, of rounds closed already: an open round's updates are still read
// when it closes (TrafficInRound weighs its validator reward).
func PrunableUpdates(ctx context.Context, db bun.IDB, cutoff time.Time, limit int) ([]Update, error) {
	var us []Update
	err := db.NewSelect().Model(&us).Where("record_time < ?", cutoff).
		Where("round < (SELECT COALESCE(MIN(r.number), 0) FROM rounds AS r WHERE r.closed_at IS NULL)").
		Order("offset_id").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("prunable updates: %w", Normalize(err))
	}
	return us, nil
}

// DeleteUpdates removes update-log rows up to and including offset among
// ids.
func DeleteUpdates(ctx context.Context, db bun.IDB, ids []int64) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	res, err := db.NewDelete().Table("updates").Where("offset_id IN (?)", bun.List(ids)).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("delete updates: %w", Normalize(err))
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// DeleteArchivedContracts removes contracts archived at or before offset,
// and the records of holdings spent by then (an unlocked holding's
// archive). Live contracts (archived_offset IS NULL) are never touched.
func DeleteArchivedContracts(ctx context.Context, db bun.IDB, offset int64) (int64, error) {
	res, err := db.NewDelete().Table("contracts").Where("archived_offset IS NOT NULL").Where("archived_offset <= ?", offset).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("delete archived contracts: %w", Normalize(err))
	}
	n, _ := res.RowsAffected()
	if res, err = db.NewDelete().Table("spent_holdings").Where("spent_offset <= ?", offset).Exec(ctx); err != nil {
		return 0, fmt.Errorf("delete spent holdings: %w", Normalize(err))
	}
	m, _ := res.RowsAffected()
	return n + m, nil
}
