// Package traffic owns buying synchronizer traffic: a party's purchase of
// extra traffic for the member (validator) hosting it (BuyTraffic, once
// per tracking id, and its status), the quotes the traffic page shows,
// scan's member traffic status, and the operator's top-up automation
// (Topup); and the meter of a member's traffic use (StatusOf), which
// pruning carries over (Fold). The core keeps the templates and the burn
// a purchase pays with (Tx.BurnFrom).
package traffic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
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
	// Completion is the Ledger API's completion of the command the
	// request runs for (commands.Completing; TrackingID is its key),
	// written with its success; nil elsewhere.
	Completion *commands.Completion
}

// BuyTrafficResult says what a purchase created.
type BuyTrafficResult struct {
	RequestCID    coin.ContractID `json:"request_contract_id"`
	TransactionID string          `json:"transaction_id"`
	Cost          coin.Amount     `json:"cost"`
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

// Service is the traffic purchases of one ledger.
type Service struct {
	l *ledger.Ledger
}

// New builds the traffic purchases on l.
func New(l *ledger.Ledger) *Service { return &Service{l: l} }

// memberOf is the member (validator) hosting party. Every party on this
// ledger is hosted by its validator, the operator, which also submits
// every update (updates.submitter), so traffic is bought and consumed
// under the operator's party ID.
func (s *Service) memberOf(ctx context.Context, party coin.PartyID) (string, error) {
	if _, err := store.PartyByID(ctx, s.l.DB(), party); errors.Is(err, store.ErrNotFound) {
		return "", fault.Invalid("receiving_validator_party_id", "party %s is not hosted on synchronizer %s", party, s.l.SynchronizerID())
	} else if err != nil {
		return "", err
	}
	return string(s.l.Operator()), nil
}

func buyTrafficKey(payer coin.PartyID, trackingID string) string {
	return "buy-traffic:" + string(payer) + ":" + trackingID
}

// BuyTraffic burns coin of the payer worth the traffic (bytes/1e6 ×
// extraTrafficPrice USD, at the current round's price) and credits the
// member. The request completes at once: the BuyTrafficRequest contract is
// created and consumed in the same transaction. The top-up automation
// calls it too.
func (s *Service) BuyTraffic(ctx context.Context, req BuyTrafficRequest) (*BuyTrafficResult, error) {
	l := s.l
	if err := bounds.CheckID("tracking_id", req.TrackingID); err != nil {
		return nil, err
	}
	switch {
	case req.TrackingID == "":
		return nil, fault.Invalid("tracking_id", "must not be empty")
	case req.Bytes < l.Rules().MinTopupAmountBytes || req.Bytes > bounds.MaxTrafficBytes:
		_, price, err := l.CurrentRound(ctx)
		if err != nil {
			return nil, err
		}
		return nil, s.checkTrafficBytes("traffic_amount", req.Bytes, price)
	case req.SynchronizerID != l.SynchronizerID():
		return nil, fault.Invalid("domain_id", "unknown synchronizer %q; this network's is %s", req.SynchronizerID, l.SynchronizerID())
	}
	if err := bounds.CheckExpiry("expires_at", req.ExpiresAt, l.Now()); err != nil {
		return nil, err
	}
	member, err := s.memberOf(ctx, req.Member)
	if err != nil {
		return nil, err
	}
	cmd := commands.Command{Key: buyTrafficKey(req.Payer, req.TrackingID), Completion: req.Completion}
	var res *BuyTrafficResult
	err = l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		tx := x.DB()
		prev, err := x.ClaimCommand(ctx, cmd.Key)
		if err != nil {
			return err
		}
		if prev != nil {
			return fmt.Errorf("%w: tracking id %q was already used for a traffic purchase", fault.ErrDuplicate, req.TrackingID)
		}
		if err := x.LockParties(ctx, req.Payer); err != nil {
			return err
		}
		if err := x.LockKey(ctx, "traffic:"+member); err != nil {
			return err
		}
		if err := x.Begin(ctx, "buy-traffic"); err != nil {
			return err
		}
		price := x.Round().Price
		cost := l.Rules().TrafficCost(req.Bytes, price)
		usd := ledger.CoinToUSD(cost, price)
		paid, err := x.BurnFrom(ctx, req.Payer, cost)
		if err != nil {
			return err
		}
		reqCID := x.Create(ledger.TemplateBuyTrafficRequest, buyTrafficPayload{
			DSO: l.DSO(), EndUserParty: req.Payer, ExpiresAt: ledger.FormatTime(req.ExpiresAt), TrackingID: req.TrackingID,
			TrafficAmount: fmt.Sprint(req.Bytes), MemberID: member, SynchronizerID: req.SynchronizerID, MigrationID: "0",
		}, l.DSO(), req.Payer)
		x.Archive(reqCID) // completed in the same transaction
		mt, err := store.MemberTrafficOf(ctx, tx, member, req.SynchronizerID)
		prevCID := coin.ContractID("")
		switch {
		case errors.Is(err, store.ErrNotFound):
			mt = &store.MemberTraffic{MemberID: member, SynchronizerID: req.SynchronizerID}
		case err != nil:
			return err
		default:
			prevCID = mt.ContractID
			x.Archive(prevCID)
		}
		mt.TotalPurchased += req.Bytes
		mt.NumPurchases++
		mt.CoinSpent = mt.CoinSpent.Add(cost)
		mt.USDSpent = mt.USDSpent.Add(usd)
		mt.ContractID = x.Create(ledger.TemplateMemberTraffic, memberTrafficPayload{
			DSO: l.DSO(), MemberID: member, SynchronizerID: req.SynchronizerID, MigrationID: "0",
			TotalPurchased: fmt.Sprint(mt.TotalPurchased), NumPurchases: fmt.Sprint(mt.NumPurchases), AmuletSpent: mt.CoinSpent, USDSpent: mt.USDSpent,
		}, l.DSO())
		x.Record(req.Payer, ledger.HistoryTransfer, "ExtraTrafficPurchase", coin.PartyID(member), paid.Cost(coin.Zero).Neg(), paid.HoldingFees,
			fmt.Sprintf("bought %d bytes of traffic for %s", req.Bytes, member), ledger.HistoryDetails{
				Provider: l.Operator(), HoldingFees: paid.HoldingFees, Fees: cost, ContractID: reqCID, TrackingID: req.TrackingID,
			})
		res = &BuyTrafficResult{RequestCID: reqCID, TransactionID: x.UpdateID(), Cost: cost}
		stored, err := json.Marshal(res)
		if err != nil {
			return err
		}
		x.AfterCommit(func(ctx context.Context) error {
			return store.SaveMemberTraffic(ctx, tx, mt, prevCID)
		})
		x.SaveCommand(cmd, req.Payer, "buy-traffic", string(stored))
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
func (s *Service) BuyTrafficStatusOf(ctx context.Context, payer coin.PartyID, trackingID string) (BuyTrafficStatus, error) {
	c, err := store.CommandByKey(ctx, s.l.DB(), buyTrafficKey(payer, trackingID))
	if err != nil {
		return BuyTrafficStatus{}, fmt.Errorf("buy traffic request %q: %w", trackingID, err)
	}
	var r BuyTrafficResult
	if err := json.Unmarshal([]byte(c.Result), &r); err != nil {
		return BuyTrafficStatus{}, fmt.Errorf("buy traffic request %q: %w", trackingID, err)
	}
	return BuyTrafficStatus{Status: "completed", TransactionID: r.TransactionID, RequestCID: r.RequestCID}, nil
}

// TrafficStatus computes the traffic balance of the validator hosting
// party (the operator, for every party of this ledger).
func (s *Service) TrafficStatus(ctx context.Context, party coin.PartyID) (TrafficStatus, error) {
	member, err := s.memberOf(ctx, party)
	if err != nil {
		return TrafficStatus{}, err
	}
	return StatusOf(ctx, s.l, member)
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
func (s *Service) QuoteTraffic(ctx context.Context, bytes int64) (TrafficQuote, error) {
	_, price, err := s.l.CurrentRound(ctx)
	if err != nil {
		return TrafficQuote{}, err
	}
	return s.quoteTraffic(bytes, price)
}

// QuoteTrafficForCoin prices the most bytes cc buys at the current
// round's price (the cost stays within cc).
func (s *Service) QuoteTrafficForCoin(ctx context.Context, cc coin.Amount) (TrafficQuote, error) {
	if !cc.IsPositive() {
		return TrafficQuote{}, fault.Invalid("amount", "enter a positive amount of CC")
	}
	_, price, err := s.l.CurrentRound(ctx)
	if err != nil {
		return TrafficQuote{}, err
	}
	r := s.l.Rules()
	// Past the most one purchase buys, the byte count below would not fit
	// an int64.
	if most := r.TrafficCost(bounds.MaxTrafficBytes, price); cc.Cmp(most) > 0 {
		return TrafficQuote{}, fault.Invalid("amount", "one purchase buys at most %s bytes, for about %s CC",
			groupThousands(bounds.MaxTrafficBytes), groupThousands(most.DivCeil(coin.FromInt(1))))
	}
	// bytes = cc × price ÷ (USD per MB) × 1e6, then down until the cost,
	// rounded as TrafficCost rounds it, is within cc.
	bytes := ledger.CoinToUSD(cc, price).MulInt(1_000_000).DivCeil(r.ExtraTrafficPriceUSDPerMB)
	for bytes > 0 && r.TrafficCost(bytes, price).Cmp(cc) > 0 {
		bytes--
	}
	return s.quoteTraffic(bytes, price)
}

func (s *Service) quoteTraffic(bytes int64, price coin.Amount) (TrafficQuote, error) {
	if err := s.checkTrafficBytes("amount", bytes, price); err != nil {
		return TrafficQuote{}, err
	}
	cost := s.l.Rules().TrafficCost(bytes, price)
	return TrafficQuote{Bytes: bytes, Cost: cost, CostUSD: ledger.CoinToUSD(cost, price), Price: price}, nil
}

// checkTrafficBytes is the minimum purchase, said in bytes and in coin at
// price, so the buyer knows what to enter, and the maximum
// (MaxTrafficBytes).
func (s *Service) checkTrafficBytes(field string, bytes int64, price coin.Amount) error {
	if bytes > bounds.MaxTrafficBytes {
		return fault.Invalid(field, "one purchase buys at most %s bytes", groupThousands(bounds.MaxTrafficBytes))
	}
	min := s.l.Rules().MinTopupAmountBytes
	if bytes >= min {
		return nil
	}
	minCC := s.l.Rules().TrafficCost(min, price)
	return fault.Invalid(field, "the minimum traffic purchase is %s bytes (about %s CC)", groupThousands(min), groupThousands(minCC.DivCeil(coin.FromInt(1))))
}

// groupThousands writes n with commas between groups of three digits.
func groupThousands(n int64) string { return ledger.HumanCC(coin.FromInt(n)) }
