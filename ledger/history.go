package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// HistoryItem is one row of a party's wallet history.
//
// The history adds up: for every party, the Amounts of its entries
// recorded between two moments sum exactly to the change of its available
// balance between them, where the available balance is the sum of the
// initial amounts of its unlocked holdings, that is the wallet's
// EffectiveUnlocked plus its HoldingFees (Balance) at any round. So a lock
// is a debit when it is made (the locked coin leaves) and an unlock a
// credit (what comes back); a transfer out of a lock (an accepted
// instruction) moves nothing of the sender's, and a holding that expires
// as dust takes its amount with it, unlocked, or nothing, locked. Holding
// fees accrue per round but are charged when a holding is spent (in a
// transfer, lock, merge or purchase), and are part of that entry's Amount
// then (and shown in its Fees). The JSON API, the web page and the CSV all
// show these Amounts: the API as Sender and Receivers, which historyLegs
// builds from the same amounts, so they add up to Amount for the reader.
type HistoryItem struct {
	ID           int64
	UpdateOffset int64
	Kind         HistoryKind
	Subtype      string
	Counterparty coin.PartyID
	// Amount is the change of the party's available balance (negative
	// when sending or locking).
	Amount      coin.Amount
	Fees        coin.Amount
	Description string
	Round       coin.Round
	Time        time.Time
	// Sender and Receivers are the entry in the wallet API's transaction
	// shape: a transfer's sender and receivers, a balance change's
	// receivers; nil and empty for a notification.
	Sender    *PartyAmount
	Receivers []PartyAmount
	Details   HistoryDetails
	// UpdateID is the update's ID (HistoryPageFor fills it in; "" if
	// pruned), Reward a reward earned (kind "reward", HistoryPageFor).
	UpdateID string
	Reward   *EarnedReward
}

// historyLegs builds the API's sender and receivers of a row from its
// amounts, before it is turned to the reader's side: a row both sides
// share has the row's party and its counterparty, each with its own
// amount; a row of one party has that party alone. The reader's amounts
// among them sum to its Amount.
func historyLegs(e *store.HistoryEntry) (*PartyAmount, []PartyAmount) {
	own := PartyAmount{Party: e.Party, Amount: e.Amount}
	var other []PartyAmount
	if e.CounterAmount != nil {
		other = []PartyAmount{{Party: coin.PartyID(e.Counterparty), Amount: *e.CounterAmount}}
	}
	switch HistoryKind(e.Kind) {
	case HistoryTransfer:
		return &own, append([]PartyAmount{}, other...)
	case HistoryBalanceChange:
		return nil, append([]PartyAmount{own}, other...)
	}
	return nil, []PartyAmount{}
}

// HistoryQuery selects a page of history, newest first.
type HistoryQuery struct {
	// BeforeID continues after the last item of the previous page (0: newest).
	BeforeID     int64
	PageSize     int
	Kind         HistoryKind
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
	es, err := store.History(ctx, l.db, store.HistoryFilter{Party: party, BeforeID: q.BeforeID, Limit: q.PageSize, Kind: string(q.Kind), Counterparty: string(q.Counterparty)})
	if err != nil {
		return nil, err
	}
	out := make([]HistoryItem, 0, len(es))
	for _, e := range es {
		sender, receivers := historyLegs(&e)
		if e.Party != party && e.CounterAmount != nil {
			// A row both sides share, read from the counterparty's side.
			e.Party, e.Counterparty, e.Amount, e.Fees = party, string(e.Party), *e.CounterAmount, coin.Zero
			if e.CounterFees != nil {
				e.Fees = *e.CounterFees
			}
		}
		it := HistoryItem{
			ID: e.ID, UpdateOffset: e.OffsetID, Kind: HistoryKind(e.Kind), Subtype: e.Subtype, Counterparty: coin.PartyID(e.Counterparty),
			Amount: e.Amount, Fees: e.Fees, Description: e.Description, Round: e.Round, Time: e.RecordTime,
			Sender: sender, Receivers: receivers,
		}
		if err := json.Unmarshal([]byte(e.Details), &it.Details); err != nil {
			return nil, fmt.Errorf("history entry %d: %w", e.ID, err)
		}
		out = append(out, it)
	}
	return out, nil
}
