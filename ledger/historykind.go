package ledger

// HistoryKind is what a row of a party's history records; the wallet
// API's transaction_type. The kinds and their words are listed once,
// here (historyKinds): the history's reads, the API's shapes, the page's
// filter and its words all go by it.
type HistoryKind string

// The history kinds.
const (
	// HistoryTransfer: coin moved from one party to others (a send, a
	// payment, a lock for one).
	HistoryTransfer HistoryKind = "transfer"
	// HistoryBalanceChange: one party's balance changed on its own (a tap,
	// a mint, fees, coin coming back, rewards collected).
	HistoryBalanceChange HistoryKind = "balance_change"
	// HistoryNotification: nothing moved (a request made or ended).
	HistoryNotification HistoryKind = "notification"
	// HistoryReward: a reward earned (HistoryPageFor adds them among the
	// rows; no row has it).
	HistoryReward HistoryKind = "reward"
)

// historyKinds are the kinds in the order the history's filter offers
// them, with the words the pages show; filter says whether a history can
// be filtered by it.
var historyKinds = []struct {
	kind   HistoryKind
	words  string
	filter bool
}{
	{HistoryTransfer, "Transfer", true},
	{HistoryBalanceChange, "Balance change", true},
	{HistoryNotification, "Notification", true},
	{HistoryReward, "Reward", false},
}

// Words is the kind as the pages show it ("Balance change"); an unknown
// kind shows as it is.
func (k HistoryKind) Words() string {
	for _, h := range historyKinds {
		if h.kind == k {
			return h.words
		}
	}
	return string(k)
}

// HistoryKinds lists the kinds a history can be filtered by
// (ledger/history's Query.Kind), in the filter's order.
func HistoryKinds() []HistoryKind {
	var out []HistoryKind
	for _, h := range historyKinds {
		if h.filter {
			out = append(out, h.kind)
		}
	}
	return out
}
