package ledger

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// HoldingView is one holding (UTXO) as of a round.
type HoldingView struct {
	Contract      Contract
	Owner         coin.PartyID
	Initial       coin.Amount
	CreatedRound  coin.Round
	RatePerRound  coin.Amount
	AccruedFee    coin.Amount
	Effective     coin.Amount
	Locked        bool
	LockHolder    string
	LockExpiresAt time.Time
	// ExpiresAtRound is the round at which the holding becomes dust.
	ExpiresAtRound coin.Round
}

// Balance is a party's balance as of the latest open round.
type Balance struct {
	Round             coin.Round
	Price             coin.Amount
	EffectiveUnlocked coin.Amount
	EffectiveLocked   coin.Amount
	// HoldingFees counts unlocked holdings only, as the real wallet does.
	HoldingFees coin.Amount
	Count       int
	LockedCount int
}

// CurrentRound returns the latest open round and its price.
func (l *Ledger) CurrentRound(ctx context.Context) (coin.Round, coin.Amount, error) {
	r, err := l.Rounds().usableRound(ctx, l.db)
	if err != nil {
		return 0, coin.Zero, err
	}
	return r.Number, r.Price, nil
}

// HoldingViewWithFee is the view of h with fee accrued (HoldingFee at the
// round of the view), for callers that have computed it already
// (ledger/holdingsview).
func HoldingViewWithFee(h store.Holding, fee coin.Amount) HoldingView {
	exp, _ := ExpiresAt(h.Amount, h.Rate, h.CreatedRound)
	return HoldingView{
		Owner: h.Owner, Initial: h.Amount, CreatedRound: h.CreatedRound, RatePerRound: h.Rate,
		AccruedFee: fee, Effective: h.Amount.Sub(fee), Locked: h.LockHolder != "", LockHolder: h.LockHolder,
		LockExpiresAt: h.LockExpiresAt.Time, ExpiresAtRound: exp,
	}
}

// Balance sums a party's holdings at the latest open round.
func (l *Ledger) Balance(ctx context.Context, party coin.PartyID) (Balance, error) {
	return l.balanceIn(ctx, l.db, party)
}

// balanceIn is Balance read through db (a transaction's, when a rule
// decides on the balance).
func (l *Ledger) balanceIn(ctx context.Context, db bun.IDB, party coin.PartyID) (Balance, error) {
	r, err := l.Rounds().usableRound(ctx, db)
	if err != nil {
		return Balance{}, err
	}
	hs, err := store.HoldingsByOwner(ctx, db, party)
	if err != nil {
		return Balance{}, err
	}
	return balanceOf(r, hs), nil
}

func balanceOf(r *store.Round, hs []store.Holding) Balance {
	b := Balance{Round: r.Number, Price: r.Price}
	for _, h := range hs {
		fee := HoldingFee(h.Amount, h.Rate, h.CreatedRound, r.Number)
		b.Add(h.Amount.Sub(fee), fee, h.LockHolder != "")
	}
	return b
}

// Add counts one holding worth eff, with fee accrued, in the balance.
func (b *Balance) Add(eff, fee coin.Amount, locked bool) {
	if locked {
		b.EffectiveLocked = b.EffectiveLocked.Add(eff)
		b.LockedCount++
		return
	}
	b.EffectiveUnlocked = b.EffectiveUnlocked.Add(eff)
	b.HoldingFees = b.HoldingFees.Add(fee)
	b.Count++
}

// releaseLock spends the locked holding lockedCID if it is still locked
// for holder, burning its accrued holding fee: it returns the value left
// and the fee, or locked false when the lock is gone (spent or expired
// and unlocked by its owner).
func (t *txn) releaseLock(ctx context.Context, lockedCID, holder coin.ContractID) (value, fee coin.Amount, locked bool, err error) {
	hs, err := store.HoldingsByIDs(ctx, t.tx, []coin.ContractID{lockedCID})
	if err != nil {
		return coin.Zero, coin.Zero, false, err
	}
	t.traffic += t.l.rules.TrafficBytes(len(hs))
	if len(hs) != 1 || hs[0].LockHolder != string(holder) {
		return coin.Zero, coin.Zero, false, nil
	}
	if err := t.archiveHolding(ctx, hs[0]); err != nil {
		return coin.Zero, coin.Zero, false, err
	}
	fee = HoldingFee(hs[0].Amount, hs[0].Rate, hs[0].CreatedRound, t.round.Number)
	t.burn(fee)
	return hs[0].Amount.Sub(fee), fee, true, nil
}
