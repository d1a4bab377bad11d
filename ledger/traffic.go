package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// Traffic templates.
const (
	TemplateBuyTrafficRequest = "#splice-wallet:Splice.Wallet.BuyTrafficRequest:BuyTrafficRequest"
	TemplateMemberTraffic     = "#splice-amulet:Splice.DecentralizedSynchronizer:MemberTraffic"
)

// BuyTrafficRequest buys extra traffic for a member, paid by Payer.
type BuyTrafficRequest struct {
	Payer coin.PartyID
	// Member is the validator whose traffic grows; any party hosted by it
	// names it (receiving_validator_party_id).
	Member         coin.PartyID
	SynchronizerID string
	Bytes          int64
	ExpiresAt      time.Time
	// TrackingID makes the request idempotent (409 reused, 429 in flight).
	TrackingID string
}

// BuyTrafficResult says what a purchase created.
type BuyTrafficResult struct {
	RequestCID    coin.ContractID `json:"request_contract_id"`
	TransactionID string          `json:"transaction_id"`
	Cost          coin.Amount     `json:"cost"`
}

// TrafficStatus is a member's traffic balance.
type TrafficStatus struct {
	Member string
	// Purchased is all extra traffic bought; Consumed all traffic used.
	Purchased int64
	Consumed  int64
	// ExtraConsumed is the part of Consumed the free base rate did not
	// cover; Remaining = Purchased - ExtraConsumed (negative: overdrawn).
	ExtraConsumed int64
	Remaining     int64
	// BaseRateRemaining is the free traffic left in the current window.
	BaseRateRemaining int64
	NumPurchases      int64
	CoinSpent         coin.Amount
	USDSpent          coin.Amount
}

type buyTrafficPayload struct {
	DSO            coin.PartyID `json:"dso"`
	EndUserParty   coin.PartyID `json:"endUserParty"`
	ExpiresAt      string       `json:"expiresAt"`
	TrackingID     string       `json:"trackingId"`
	TrafficAmount  string       `json:"trafficAmount"`
	MemberID       string       `json:"memberId"`
	SynchronizerID string       `json:"synchronizerId"`
	MigrationID    string       `json:"migrationId"`
}

type memberTrafficPayload struct {
	DSO            coin.PartyID `json:"dso"`
	MemberID       string       `json:"memberId"`
	SynchronizerID string       `json:"synchronizerId"`
	MigrationID    string       `json:"migrationId"`
	TotalPurchased string       `json:"totalPurchased"`
	NumPurchases   string       `json:"numPurchases"`
	AmuletSpent    coin.Amount  `json:"amuletSpent"`
	USDSpent       coin.Amount  `json:"usdSpent"`
}

// memberOf is the member (validator) hosting party. Every party on this
// ledger is hosted by its validator, the operator, which also submits
// every update (updates.submitter), so traffic is bought and consumed
// under the operator's party ID.
func (l *Ledger) memberOf(ctx context.Context, party coin.PartyID) (string, error) {
	if _, err := store.PartyByID(ctx, l.db, party); errors.Is(err, store.ErrNotFound) {
		return "", invalid("receiving_validator_party_id", "party %s is not hosted on synchronizer %s", party, l.synchronizerID)
	} else if err != nil {
		return "", err
	}
	return string(l.operator), nil
}

func buyTrafficKey(payer coin.PartyID, trackingID string) string {
	return "buy-traffic:" + string(payer) + ":" + trackingID
}

// BuyTraffic burns coin of the payer worth the traffic (bytes/1e6 ×
// extraTrafficPrice USD, at the current round's price) and credits the
// member. The request completes at once: the BuyTrafficRequest contract is
// created and consumed in the same transaction. The top-up automation
// calls it too.
func (l *Ledger) BuyTraffic(ctx context.Context, req BuyTrafficRequest) (*BuyTrafficResult, error) {
	if err := checkID("tracking_id", req.TrackingID); err != nil {
		return nil, err
	}
	switch {
	case req.TrackingID == "":
		return nil, invalid("tracking_id", "must not be empty")
	case req.Bytes < l.rules.MinTopupAmountBytes || req.Bytes > MaxTrafficBytes:
		_, price, err := l.CurrentRound(ctx)
		if err != nil {
			return nil, err
		}
		return nil, l.checkTrafficBytes("traffic_amount", req.Bytes, price)
	case req.SynchronizerID != l.synchronizerID:
		return nil, invalid("domain_id", "unknown synchronizer %q; this network's is %s", req.SynchronizerID, l.synchronizerID)
	}
	if err := checkExpiry("expires_at", req.ExpiresAt, l.now()); err != nil {
		return nil, err
	}
	member, err := l.memberOf(ctx, req.Member)
	if err != nil {
		return nil, err
	}
	key := buyTrafficKey(req.Payer, req.TrackingID)
	var res *BuyTrafficResult
	err = l.change(ctx, func(ctx context.Context, c *change) error {
		tx := c.tx
		prev, err := l.claimCommand(ctx, tx, key)
		if err != nil {
			return err
		}
		if prev != nil {
			return fmt.Errorf("%w: tracking id %q was already used for a traffic purchase", ErrDuplicate, req.TrackingID)
		}
		if err := l.lockParties(ctx, tx, req.Payer); err != nil {
			return err
		}
		if err := l.db.LockKey(ctx, tx, "traffic:"+member); err != nil {
			return err
		}
		t, err := c.begin(ctx, "buy-traffic")
		if err != nil {
			return err
		}
		cost := l.rules.TrafficCost(req.Bytes, t.round.Price)
		usd := CoinToUSD(cost, t.round.Price)
		paid, err := t.burnFrom(ctx, req.Payer, cost)
		if err != nil {
			return err
		}
		reqCID := t.create(TemplateBuyTrafficRequest, buyTrafficPayload{
			DSO: l.dso, EndUserParty: req.Payer, ExpiresAt: FormatTime(req.ExpiresAt), TrackingID: req.TrackingID,
			TrafficAmount: fmt.Sprint(req.Bytes), MemberID: member, SynchronizerID: req.SynchronizerID, MigrationID: "0",
		}, l.dso, req.Payer)
		t.archive(reqCID) // completed in the same transaction
		mt, err := store.MemberTrafficOf(ctx, tx, member, req.SynchronizerID)
		prevCID := coin.ContractID("")
		switch {
		case errors.Is(err, store.ErrNotFound):
			mt = &store.MemberTraffic{MemberID: member, SynchronizerID: req.SynchronizerID}
		case err != nil:
			return err
		default:
			prevCID = mt.ContractID
			t.archive(prevCID)
		}
		mt.TotalPurchased += req.Bytes
		mt.NumPurchases++
		mt.CoinSpent = mt.CoinSpent.Add(cost)
		mt.USDSpent = mt.USDSpent.Add(usd)
		mt.ContractID = t.create(TemplateMemberTraffic, memberTrafficPayload{
			DSO: l.dso, MemberID: member, SynchronizerID: req.SynchronizerID, MigrationID: "0",
			TotalPurchased: fmt.Sprint(mt.TotalPurchased), NumPurchases: fmt.Sprint(mt.NumPurchases), AmuletSpent: mt.CoinSpent, USDSpent: mt.USDSpent,
		}, l.dso)
		t.record(req.Payer, HistoryTransfer, "ExtraTrafficPurchase", coin.PartyID(member), paid.cost(coin.Zero).Neg(), paid.HoldingFees,
			fmt.Sprintf("bought %d bytes of traffic for %s", req.Bytes, member), HistoryDetails{
				Provider: l.operator, HoldingFees: paid.HoldingFees, Fees: cost, ContractID: reqCID, TrackingID: req.TrackingID,
			})
		res = &BuyTrafficResult{RequestCID: reqCID, TransactionID: t.update, Cost: cost}
		stored := mustJSON(res)
		t.afterCommit(func(ctx context.Context) error {
			if err := store.SaveMemberTraffic(ctx, tx, mt, prevCID); err != nil {
				return err
			}
			return l.saveCommand(ctx, t, key, req.Payer, "buy-traffic", stored)
		})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("buy %d bytes of traffic for %s: %w", req.Bytes, req.Member, err)
	}
	return res, nil
}

// BuyTrafficStatus is the status of a traffic purchase by tracking id.
type BuyTrafficStatus struct {
	// Status is created, completed or failed. Purchases complete in the
	// transaction that creates them and a failed one leaves no trace, so
	// only completed is ever stored.
	Status        string
	TransactionID string
	RequestCID    coin.ContractID
}

// BuyTrafficStatusOf looks up payer's purchase by tracking id.
func (l *Ledger) BuyTrafficStatusOf(ctx context.Context, payer coin.PartyID, trackingID string) (BuyTrafficStatus, error) {
	c, err := store.CommandByKey(ctx, l.db, buyTrafficKey(payer, trackingID))
	if err != nil {
		return BuyTrafficStatus{}, fmt.Errorf("buy traffic request %q: %w", trackingID, err)
	}
	var r BuyTrafficResult
	if err := json.Unmarshal([]byte(c.Result), &r); err != nil {
		return BuyTrafficStatus{}, fmt.Errorf("buy traffic request %q: %w", trackingID, err)
	}
	return BuyTrafficStatus{Status: "completed", TransactionID: r.TransactionID, RequestCID: r.RequestCID}, nil
}

// trafficMeter folds a member's traffic use, update by update in log
// order, into consumed and extra-consumed bytes: the free base rate covers
// up to BaseRateBurstAmountBytes per BaseRateBurstWindow (windows aligned
// to the Unix epoch), and use beyond it draws on the purchased extra
// traffic. Its state is store.PrunedTraffic: pruning folds the updates it
// removes into the carried meter, and TrafficStatusOf goes on from there
// over the rest of the log, so a pruning run changes no number.
type trafficMeter struct {
	window time.Duration
	burst  int64
	m      store.PrunedTraffic
}

func (l *Ledger) newTrafficMeter(carried store.PrunedTraffic) *trafficMeter {
	return &trafficMeter{window: l.rules.BaseRateBurstWindow, burst: l.rules.BaseRateBurstAmountBytes, m: carried}
}

func (tm *trafficMeter) windowOf(at time.Time) int64 {
	if tm.window <= 0 {
		return 0
	}
	return at.UnixNano() / int64(tm.window)
}

// add folds one update's traffic in.
func (tm *trafficMeter) add(at time.Time, bytes int64) {
	tm.m.Consumed += bytes
	if w := tm.windowOf(at); w != tm.m.WindowIndex {
		tm.m.ExtraConsumed += tm.overBurst()
		tm.m.WindowIndex, tm.m.WindowUsed = w, 0
	}
	tm.m.WindowUsed += bytes
}

// overBurst is the extra traffic the open window has drawn so far.
func (tm *trafficMeter) overBurst() int64 {
	if tm.m.WindowIndex >= 0 && tm.m.WindowUsed > tm.burst {
		return tm.m.WindowUsed - tm.burst
	}
	return 0
}

// TrafficStatusOf computes member's traffic balance: its purchases, and
// its use from the traffic meter carried over pruning and the update log.
func (l *Ledger) TrafficStatusOf(ctx context.Context, member string) (TrafficStatus, error) {
	s := TrafficStatus{Member: member, CoinSpent: coin.Zero, USDSpent: coin.Zero}
	mt, err := store.MemberTrafficOf(ctx, l.db, member, l.synchronizerID)
	switch {
	case err == nil:
		s.Purchased, s.NumPurchases, s.CoinSpent, s.USDSpent = mt.TotalPurchased, mt.NumPurchases, mt.CoinSpent, mt.USDSpent
	case !errors.Is(err, store.ErrNotFound):
		return s, err
	}
	carried, err := store.PrunedTrafficOf(ctx, l.db, member)
	if err != nil {
		return s, err
	}
	tm := l.newTrafficMeter(*carried)
	err = store.ScanTrafficOf(ctx, l.db, member, func(at time.Time, bytes int64) error {
		tm.add(at, bytes)
		return nil
	})
	if err != nil {
		return s, err
	}
	s.Consumed, s.ExtraConsumed = tm.m.Consumed, tm.m.ExtraConsumed+tm.overBurst()
	s.BaseRateRemaining = tm.burst
	if tm.m.WindowIndex == tm.windowOf(l.now()) {
		s.BaseRateRemaining = max(0, tm.burst-tm.m.WindowUsed)
	}
	s.Remaining = s.Purchased - s.ExtraConsumed
	return s, nil
}

// TrafficStatus computes the traffic balance of the validator hosting
// party (the operator, for every party of this ledger).
func (l *Ledger) TrafficStatus(ctx context.Context, party coin.PartyID) (TrafficStatus, error) {
	member, err := l.memberOf(ctx, party)
	if err != nil {
		return TrafficStatus{}, err
	}
	return l.TrafficStatusOf(ctx, member)
}

// TrafficQuote is the price of a traffic purchase at the current round.
type TrafficQuote struct {
	Bytes   int64
	Cost    coin.Amount // coin burned
	CostUSD coin.Amount
	Price   coin.Amount // USD per coin, the current round's
}

// QuoteTraffic prices a purchase of bytes at the current round's price;
// below the minimum purchase it is refused, as BuyTraffic would.
func (l *Ledger) QuoteTraffic(ctx context.Context, bytes int64) (TrafficQuote, error) {
	_, price, err := l.CurrentRound(ctx)
	if err != nil {
		return TrafficQuote{}, err
	}
	return l.quoteTraffic(bytes, price)
}

// QuoteTrafficForCoin prices the most bytes cc buys at the current
// round's price (the cost stays within cc).
func (l *Ledger) QuoteTrafficForCoin(ctx context.Context, cc coin.Amount) (TrafficQuote, error) {
	if !cc.IsPositive() {
		return TrafficQuote{}, invalid("amount", "enter a positive amount of CC")
	}
	_, price, err := l.CurrentRound(ctx)
	if err != nil {
		return TrafficQuote{}, err
	}
	r := l.rules
	// Past the most one purchase buys, the byte count below would not fit
	// an int64.
	if most := r.TrafficCost(MaxTrafficBytes, price); cc.Cmp(most) > 0 {
		return TrafficQuote{}, invalid("amount", "one purchase buys at most %s bytes, for about %s CC",
			groupThousands(MaxTrafficBytes), groupThousands(most.DivCeil(coin.FromInt(1))))
	}
	// bytes = cc × price ÷ (USD per MB) × 1e6, then down until the cost,
	// rounded as TrafficCost rounds it, is within cc.
	bytes := CoinToUSD(cc, price).MulInt(1_000_000).DivCeil(r.ExtraTrafficPriceUSDPerMB)
	for bytes > 0 && r.TrafficCost(bytes, price).Cmp(cc) > 0 {
		bytes--
	}
	return l.quoteTraffic(bytes, price)
}

func (l *Ledger) quoteTraffic(bytes int64, price coin.Amount) (TrafficQuote, error) {
	if err := l.checkTrafficBytes("amount", bytes, price); err != nil {
		return TrafficQuote{}, err
	}
	cost := l.rules.TrafficCost(bytes, price)
	return TrafficQuote{Bytes: bytes, Cost: cost, CostUSD: CoinToUSD(cost, price), Price: price}, nil
}

// checkTrafficBytes is the minimum purchase, said in bytes and in coin at
// price, so the buyer knows what to enter, and the maximum
// (MaxTrafficBytes).
func (l *Ledger) checkTrafficBytes(field string, bytes int64, price coin.Amount) error {
	if bytes > MaxTrafficBytes {
		return invalid(field, "one purchase buys at most %s bytes", groupThousands(MaxTrafficBytes))
	}
	min := l.rules.MinTopupAmountBytes
	if bytes >= min {
		return nil
	}
	minCC := l.rules.TrafficCost(min, price)
	return invalid(field, "the minimum traffic purchase is %s bytes (about %s CC)", groupThousands(min), groupThousands(minCC.DivCeil(coin.FromInt(1))))
}

// groupThousands writes n with commas between groups of three digits.
func groupThousands(n int64) string { return humanCC(coin.FromInt(n)) }
