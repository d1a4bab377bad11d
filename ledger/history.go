package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/ledger/coin"
	"github.com/ccwallet/ccwallet/store"
)

// HistoryItem is one row of a party's wallet history.
type HistoryItem struct {
	ID           int64
	UpdateOffset int64
	Kind         string // transfer, balance_change, notification
	Subtype      string
	Counterparty coin.PartyID
	// Amount is the change of the party's balance (negative when sending).
	Amount      coin.Amount
	Fees        coin.Amount
	Description string
	Round       coin.Round
	Time        time.Time
	Details     HistoryDetails
}

// HistoryQuery selects a page of history, newest first.
type HistoryQuery struct {
	// BeforeID continues after the last item of the previous page (0: newest).
	BeforeID     int64
	PageSize     int
	Kind         string
	Counterparty coin.PartyID
}

// MaxHistoryPage bounds a history page.
const MaxHistoryPage = 1000

// History returns a page of party's history, newest first. Pages are keyed
// by entry id, so they stay stable while new transactions arrive.
func (l *Ledger) History(ctx context.Context, party coin.PartyID, q HistoryQuery) ([]HistoryItem, error) {
	if q.PageSize <= 0 {
		return nil, invalid("page_size", "must be positive")
	}
	if q.PageSize > MaxHistoryPage {
		q.PageSize = MaxHistoryPage
	}
	es, err := store.History(ctx, l.db, store.HistoryFilter{Party: party, BeforeID: q.BeforeID, Limit: q.PageSize, Kind: q.Kind, Counterparty: string(q.Counterparty)})
	if err != nil {
		return nil, err
	}
	out := make([]HistoryItem, 0, len(es))
	for _, e := range es {
		if e.Party != party && e.CounterAmount != nil {
			// A row both sides share, read from the counterparty's side.
			e.Party, e.Counterparty, e.Amount, e.Fees = party, string(e.Party), *e.CounterAmount, coin.Zero
			if e.CounterFees != nil {
				e.Fees = *e.CounterFees
			}
		}
		it := HistoryItem{
			ID: e.ID, UpdateOffset: e.OffsetID, Kind: e.Kind, Subtype: e.Subtype, Counterparty: coin.PartyID(e.Counterparty),
			Amount: e.Amount, Fees: e.Fees, Description: e.Description, Round: e.Round, Time: e.RecordTime,
		}
		if err := json.Unmarshal([]byte(e.Details), &it.Details); err != nil {
			return nil, fmt.Errorf("history entry %d: %w", e.ID, err)
		}
		out = append(out, it)
	}
	return out, nil
}
