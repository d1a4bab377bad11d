package history

import (
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
)

// Item is one row of a party's wallet history.
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
// show these Amounts: the API as Sender and Receivers, which
// List builds from the same amounts, so they add up to Amount for the reader.
type Item struct {
	ID           int64
	UpdateOffset int64
	Kind         ledger.HistoryKind
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
	Sender    *ledger.PartyAmount
	Receivers []ledger.PartyAmount
	Details   ledger.HistoryDetails
	// UpdateID is the update's ID (Page fills it in; "" if
	// pruned), Reward a reward earned (kind "reward", its Page).
	UpdateID string
	Reward   *EarnedReward
}

// Query selects a page of history, newest first.
type Query struct {
	// BeforeID continues after the last item of the previous page (0: newest).
	BeforeID     int64
	PageSize     int
	Kind         ledger.HistoryKind
	Counterparty coin.PartyID
}

// MaxPage bounds a history page.
const MaxPage = 1000

// EarnedReward is a history page's row for reward coupons a party earned:
// those of one round and kind created among the page's updates.
type EarnedReward struct {
	Round   coin.Round
	Kind    string
	Coupons int
	// Amount is what they mint when collected, at the issuance caps.
	Amount coin.Amount
	// Offset, Time and UpdateID are those of the newest coupon's update
	// (Time zero and UpdateID empty if pruning removed it).
	Offset   int64
	Time     time.Time
	UpdateID string
}
