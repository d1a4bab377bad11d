// Package history owns the reading of a party's wallet history: its
// entries a page at a time (List, with the kind and counterparty
// filters), the web page's pages with the rewards earned among them
// (Page) and the balance chart's points (BalanceSeries). The history's
// rows and what they mean (Item: they add up to the
// balance's changes) are the core's, which writes them in each change.
package history

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
)

// Service is the history reads of one ledger.
type Service struct{ l *ledger.Ledger }

// New builds l's history reads.
func New(l *ledger.Ledger) *Service { return &Service{l: l} }

// List returns a page of party's history, newest first. Pages are keyed
// by entry id, so they stay stable while new transactions arrive.
func (s *Service) List(ctx context.Context, party coin.PartyID, q Query) ([]Item, error) {
	if q.PageSize <= 0 {
		return nil, fault.Invalid("page_size", "must be positive")
	}
	if q.PageSize > MaxPage {
		q.PageSize = MaxPage
	}
	es, err := store.History(ctx, s.l.DB(), store.HistoryFilter{Party: party, BeforeID: q.BeforeID, Limit: q.PageSize, Kind: string(q.Kind), Counterparty: string(q.Counterparty)})
	if err != nil {
		return nil, err
	}
	out := make([]Item, 0, len(es))
	for _, e := range es {
		sender, receivers := legs(&e)
		if e.Party != party && e.CounterAmount != nil {
			// A row both sides share, read from the counterparty's side.
			e.Party, e.Counterparty, e.Amount, e.Fees = party, string(e.Party), *e.CounterAmount, coin.Zero
			if e.CounterFees != nil {
				e.Fees = *e.CounterFees
			}
		}
		it := Item{
			ID: e.ID, UpdateOffset: e.OffsetID, Kind: ledger.HistoryKind(e.Kind), Subtype: e.Subtype, Counterparty: coin.PartyID(e.Counterparty),
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

// legs builds the API's sender and receivers of a row from its amounts,
// before it is turned to the reader's side: a row both sides share has
// the row's party and its counterparty, each with its own amount; a row
// of one party has that party alone. The reader's amounts among them sum
// to its Amount.
func legs(e *store.HistoryEntry) (*ledger.PartyAmount, []ledger.PartyAmount) {
	own := ledger.PartyAmount{Party: e.Party, Amount: e.Amount}
	var other []ledger.PartyAmount
	if e.CounterAmount != nil {
		other = []ledger.PartyAmount{{Party: coin.PartyID(e.Counterparty), Amount: *e.CounterAmount}}
	}
	switch ledger.HistoryKind(e.Kind) {
	case ledger.HistoryTransfer:
		return &own, append([]ledger.PartyAmount{}, other...)
	case ledger.HistoryBalanceChange:
		return nil, append([]ledger.PartyAmount{own}, other...)
	}
	return nil, []ledger.PartyAmount{}
}
