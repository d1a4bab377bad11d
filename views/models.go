// Package views holds the web wallet's templ components and their view
// models. Components are pure: they take a view model (with the CSRF token
// and the user as fields) and do no I/O.
package views

import (
	"encoding/json"
	"strings"
	"time"
)

// NavItem is one entry of the navigation. Handlers build the list, so a
// new page is one more entry there.
type NavItem struct {
	Key, Label, Href string
	// Group is where it shows: a tab ("", the phone's bottom bar), under
	// More, or in More's operator section.
	Group NavGroup
}

// NavGroup is a section of the navigation.
type NavGroup string

// The navigation's sections.
const (
	NavTab      NavGroup = ""
	NavMore     NavGroup = "more"
	NavOperator NavGroup = "operator"
)

// Page is what every full page needs: the layout's data.
type Page struct {
	Title string
	// User is the logged-in user's name, "" on public pages.
	User   string
	CSRF   string
	Nav    []NavItem
	Active string
	// Events is the server-sent events URL for live updates ("" for none).
	Events string
	DevNet bool
	// ViewAs is the party an admin views the wallet as (development
	// networks' impersonation), "" for their own: every page says so.
	ViewAs string
	// Minimal drops the navigation and the footer: a focused page
	// (onboarding, the confirm pages apps send people to) with one thing
	// to decide.
	Minimal bool
}

// inMore reports whether the current page is one under More.
func (p Page) inMore() bool {
	for _, n := range p.Nav {
		if n.Key == p.Active {
			return n.Group != NavTab
		}
	}
	return false
}

// hasGroup reports whether the navigation has an entry in g.
func (p Page) hasGroup(g NavGroup) bool {
	for _, n := range p.Nav {
		if n.Group == g {
			return true
		}
	}
	return false
}

// csrfHeaders is the hx-headers value that makes htmx send the CSRF token.
func (p Page) csrfHeaders() string {
	if p.CSRF == "" {
		return ""
	}
	b, _ := json.Marshal(map[string]string{"X-CSRF-Token": p.CSRF})
	return string(b)
}

// htmxConfig turns off htmx's inline indicator styles (CSP forbids inline
// style) and swaps 422 responses, so validation errors render in place,
// and 429, which the server retargets to the top of the page.
const htmxConfig = `{"includeIndicatorStyles":false,"allowEval":false,"responseHandling":[{"code":"204","swap":false},{"code":"[23]..","swap":true},{"code":"422","swap":true},{"code":"429","swap":true,"error":true},{"code":"[45]..","swap":false,"error":true}]}`

// Landing is the public page with the login button.
type Landing struct {
	Page
	Error string
	// DevProvider is true when the built-in development provider is on.
	DevProvider bool
}

// Onboard is the page of a logged-in user without a party.
type Onboard struct {
	Page
	Error string
}

// Balance is the balance summary of the home page: CC is what the party
// can send (unlocked, less accrued holding fees); Total adds what is
// locked in transfer instructions; Fees are the holding fees accrued on
// the unlocked holdings, which their next spend pays.
type Balance struct {
	CC, USD, Locked, Price string
	Total, Fees            string
	Round                  int64
}

// HoldingRow is one holding (UTXO) in the holdings table.
type HoldingRow struct {
	ContractID   string
	Amount       string
	Initial      string
	CreatedRound int64
	AccruedFee   string
	ExpiresRound int64
	// DustRisk marks a holding that expires (becomes dust) within about a
	// day of rounds.
	DustRisk bool
	Locked   bool
}

// UTXOHealth summarises the holdings.
type UTXOHealth struct {
	Count      int
	Fragmented bool
	FeePerDay  string
	DustRisk   int
}

// TapForm is the development-network faucet form.
type TapForm struct {
	CSRF    string
	Amount  string
	Error   string
	Message string
}

// Home is the home page.
type Home struct {
	Page
	Party   PartyRef
	Balance Balance
	// Holdings are the holdings listed: all of them, or the largest and
	// those at risk of expiry when there are more than the page lists
	// (Health.Count says how many there are).
	Holdings []HoldingRow
	Health   UTXOHealth
	// BalanceChart is the balance over the last changes (StepChart).
	BalanceChart Chart
	// Tap is nil outside a development network.
	Tap *TapForm
	// Incoming is what waits for the user's answer.
	Incoming Incoming
	// Outgoing is what the user sent that waits for its receiver.
	Outgoing Outgoing
	// Recent are the latest history entries (HomeRecent of them).
	Recent []HistoryRow
	// FirstRun: the wallet has neither holdings nor history yet, so Home
	// shows how to get a first coin.
	FirstRun bool
	// FirstCoinGone: a live update of a page that opened with the
	// first-coin card, now that the wallet has had coin (HomeLive).
	FirstCoinGone bool
}

// HomeRecent is how many history entries Home lists.
const HomeRecent = 5

// Outgoing is the user's own pending sends on Home: the newest transfer
// offers and instructions that wait for their receivers.
type Outgoing struct {
	Rows []OutgoingRow
	// Total counts them all (the Offers page lists them).
	Total int
}

// OutgoingRow is one pending send: Kind is "offers" or "instructions".
type OutgoingRow struct {
	OfferRow
	Kind string
}

// Incoming is the home page's cards of what waits for the user's answer:
// the transfer offers and instructions it receives, with accept and
// reject on each (the offers page's actions).
type Incoming struct {
	CSRF         string
	Offers       []OfferRow
	Instructions []OfferRow
	// Allocations are the allocation requests with a leg the user has to
	// allocate; their card links to the Allocations page.
	Allocations []AllocationRequestRow
	// Total counts them all when there are more than the cards show
	// (the offers page lists them all); 0 when all are shown.
	Total int
	// Error or Message says how the last accept or reject went.
	Error, Message string
}

// waiting counts what waits for the user's answer: all of it (Total)
// when there are more than the rows show.
func (m Incoming) waiting() int {
	if m.Total > 0 {
		return m.Total
	}
	return len(m.Offers) + len(m.Instructions) + len(m.Allocations)
}

// Holdings is the page of all holdings, a page at a time.
type Holdings struct {
	Page
	Rows []HoldingRow
	// Total is the number of holdings; From and To are the 1-based
	// positions of the first and last row shown.
	Total, From, To int
	// DustRisk counts all holdings at risk of expiry.
	DustRisk int
	// SizeChart counts all holdings by size (SizeHistogram).
	SizeChart Chart
	// PrevHref and NextHref are the neighbouring pages ("" for none).
	PrevHref, NextHref string
}

// HistoryRow is one history entry.
type HistoryRow struct {
	ID int64
	// Label is the subtype in words.
	Label string
	// At is when it happened (zero for a reward not yet collected).
	At           time.Time
	Kind         string
	Subtype      string
	Counterparty PartyRef
	Amount       string
	Fees         string
	Description  string
	Round        int64
	// UpdateID is the entry's update ("" if pruned).
	UpdateID string
}

// History is the history page.
type History struct {
	Page
	Rows         []HistoryRow
	Kind         string
	Counterparty string
	Kinds        []string
	// NextBefore is the before cursor of the next (older) page, 0 when
	// there is none. CSVHref exports the current filter.
	NextBefore int64
	FirstHref  string
	NextHref   string
	CSVHref    string
	Error      string
	// RewardsPartial: the page lists only some of the rewards earned.
	RewardsPartial bool
}

// UserRow is one user on the admin page.
type UserRow struct {
	Name  string
	Party PartyRef
	Admin bool
	// Offboardable is false for the validator operator's own user, whom
	// the ledger refuses to offboard.
	Offboardable bool
}

// AutomationRow is one automation on the admin page.
type AutomationRow struct {
	Name, Schedule, LastDuration, LastError string
	// LastRun and NextRun are zero when unknown (never run, not planned).
	LastRun, NextRun time.Time
	// About says what the schedule means, when the schedule alone
	// misleads (the round clock checks every minute; rounds last longer).
	About string
}

// OnboardForm is the admin's onboard-a-user form.
type OnboardForm struct {
	CSRF  string
	Name  string
	Error string
}

// Admin is the validator operator's page.
type Admin struct {
	Page
	Operator    PartyRef
	Users       []UserRow
	Form        OnboardForm
	Automations []AutomationRow
	// Merges is the merge automation's progress: parties with more
	// holdings than it merges down to.
	Merges []MergeRow
	// Network is the multi-validator network configuration.
	Network []NetworkRow
	// Warnings are the configuration's security warnings (disableAuth,
	// no issuer, cookies without Secure), shown first.
	Warnings []string
	// Offboard asks to confirm offboarding a user (nil: not asked);
	// OffboardError says why an offboarding failed.
	Offboard      *OffboardConfirm
	OffboardError string
	// ViewAs is the "view as a party" form (development networks only).
	ViewAs ViewAsForm
}

// ViewAsForm is the admin's form to view the wallet as another party.
type ViewAsForm struct {
	Party, Error string
}

// OffboardConfirm is the confirmation of offboarding a user: the page's
// no-JavaScript equivalent of a confirm dialog.
type OffboardConfirm struct {
	CSRF, Name string
}

// NetworkRow is one multi-validator network key on the admin page.
type NetworkRow struct {
	Key, Env, Value string
	// Ignored marks a key the embedded network accepts but does not use.
	Ignored bool
}

// ErrorPage is a full-page error.
type ErrorPage struct {
	Page
	Status  int
	Message string
	// Reference is the request ID the server's log records a failure
	// under (5xx pages); Retry the page to try again ("" for none).
	Reference, Retry string
}

// SendMethod is how the send form transfers.
type SendMethod string

// The send form's methods.
const (
	// SendOffer creates a transfer offer the receiver accepts or rejects.
	SendOffer SendMethod = "offer"
	// SendDirect is a one-step transfer to a receiver with a preapproval.
	SendDirect SendMethod = "direct"
	// SendInstruction is a token-standard transfer instruction (the coin
	// is locked until the receiver accepts or it expires).
	SendInstruction SendMethod = "instruction"
)

// SendExpiry is a lifetime the send form offers for an offer or
// instruction.
type SendExpiry struct {
	Value, Label string
	Duration     time.Duration
}

// SendExpiries are the send form's lifetimes, shortest first; a choice
// instead of a number, so none is out of range.
var SendExpiries = []SendExpiry{
	{"1h", "1 hour", time.Hour},
	{"1d", "1 day", 24 * time.Hour},
	{"7d", "7 days", 7 * 24 * time.Hour},
	{"30d", "30 days", 30 * 24 * time.Hour},
}

// SendMethods is the send form's method choice: a fragment the receiver
// check re-renders.
type SendMethods struct {
	Method SendMethod
	// Checked is true once the receiver was looked up; Preapproved says
	// whether it has a valid preapproval (the direct method is offered
	// only then), PreapprovalExpires until when.
	Checked            bool
	Preapproved        bool
	PreapprovalExpires time.Time
	// CheckError is why the receiver could not be checked.
	CheckError string
	// To is the checked receiver's party ID.
	To PartyRef
	// Default is the method chosen for the user (direct for a receiver
	// with a preapproval, else offer); a check keeps a method the user
	// changed it to.
	Default SendMethod
}

// SendForm is the send page's form.
type SendForm struct {
	CSRF        string
	Receiver    string
	Amount      string
	Description string
	// Expires is the offer's or instruction's lifetime, a SendExpiries
	// value.
	Expires string
	// DedupID is generated once per form render, so a double submit
	// transfers once.
	DedupID string
	Methods SendMethods
	Error   string
	// ErrorField is the field Error is about ("receiver", "amount",
	// "description", "expires"), shown at it; "" for the whole form.
	ErrorField string
	// AmountUSD is Amount in USD at the open round ("" when Amount is not
	// a positive amount).
	AmountUSD string
	// Review shows the transfer to confirm instead of the fields: it
	// completes in one step and cannot be undone (Method says how).
	Review bool
	Method SendMethod
}

// describedBy is a send field's aria-describedby: its error when the form
// has one for it, then what always describes it (always, "" for none).
func describedBy(f SendForm, field, always string) string {
	ids := always
	if f.Error != "" && f.ErrorField == field {
		ids = strings.TrimSpace("send-" + field + "-error " + always)
	}
	return ids
}

// Send is the send page.
type Send struct {
	Page
	Balance, BalanceUSD string
	Form                SendForm
}

// OfferRow is one pending transfer offer or transfer instruction.
type OfferRow struct {
	ContractID   string
	Counterparty PartyRef
	Amount       string
	Description  string
	ExpiresAt    time.Time
	// Incoming is true when the user receives it (accept and reject),
	// false when the user sent it (withdraw).
	Incoming bool
}

// Transfers is the list fragment of the offers page: what the buttons
// swap in place.
type Transfers struct {
	CSRF                 string
	Balance              string
	IncomingOffers       []OfferRow
	OutgoingOffers       []OfferRow
	IncomingInstructions []OfferRow
	OutgoingInstructions []OfferRow
	Error                string
	// IncomingPager and OutgoingPager page the offer lists (pending.OfferPageSize
	// at a time, newest first); Query is the page's query string, which
	// live updates keep.
	IncomingPager, OutgoingPager OfferPager
	// IncomingInstructionPager and OutgoingInstructionPager page the
	// instruction lists the same way.
	IncomingInstructionPager, OutgoingInstructionPager OfferPager
	Query                                              string
}

// OfferPager says where one offer list's page stands: Shown of Total,
// with links to the newest page (First, when not on it) and the next
// (Next, "" on the last).
type OfferPager struct {
	Shown, Total int
	First, Next  string
}

// Offers is the pending transfers page.
type Offers struct {
	Page
	Transfers Transfers
}

// Delegations is the page of the user's standing authorisations: the
// transfer preapproval and the merge delegation.
type Delegations struct {
	Page
	// PreapprovalExpires is zero without a valid preapproval.
	PreapprovalExpires time.Time
	PreapprovalCID     string
	// MergeStatus is "active", "proposed" or "" (none).
	MergeStatus string
	MergeCID    string
	// FeaturedCID is the user's FeaturedAppRight, "" when not featured;
	// FeaturedGrantable: a development network, where one self-grants it.
	FeaturedCID       string
	FeaturedGrantable bool
	Error             string
}

// TrafficForm is the buy traffic form, in two steps: quote, then confirm.
type TrafficForm struct {
	CSRF   string
	Member string
	Amount string
	// Unit is "bytes" or "cc".
	Unit       string
	TrackingID string
	Error      string
}

// TrafficQuote is the confirm step: what the purchase costs.
type TrafficQuote struct {
	// Member is the party the traffic is for.
	Member PartyRef
	Bytes  int64
	CostCC string
	CostUS string
	Price  string
}

// TrafficRequest is a purchase's status.
type TrafficRequest struct {
	TrackingID    string
	Status        string
	TransactionID string
}

// Traffic is the buy traffic page.
type Traffic struct {
	Page
	Form TrafficForm
	// Quote is set on the confirm step.
	Quote *TrafficQuote
	// Request is set after a purchase.
	Request *TrafficRequest
	// MinBytes is the smallest purchase; PricePerMB its USD price.
	MinBytes   int64
	PricePerMB string
	Balance    string
	// Purchased and Remaining are the validator's traffic in bytes.
	Purchased int64
	Remaining int64
}

// MergeRow is one party the merge automation still has to work on.
type MergeRow struct {
	Party    PartyRef
	Holdings int
	Target   int // the holdings the merge leaves
}

// MintingDelegations is the page where the validator, as delegate,
// answers external parties' minting delegation proposals and withdraws
// active delegations.
type MintingDelegations struct {
	Page
	Proposals []MintingDelegationRow
	Active    []MintingDelegationRow
	Error     string
}

// MintingDelegationRow is one proposal or active delegation.
type MintingDelegationRow struct {
	ContractID  string
	Beneficiary PartyRef
	Expires     time.Time
	Expired     bool
	MergeLimit  int
	// Replaces is, on a proposal, the active delegation of the same
	// beneficiary that accepting it replaces (nil when none).
	Replaces *MintingDelegationRow
	// Holdings is the beneficiary's unlocked holdings now (active rows).
	Holdings int
	Activity []DelegateActivityRow
}

// DelegateActivityRow is one thing the delegate did for a beneficiary.
type DelegateActivityRow struct {
	Time   time.Time
	What   string
	Amount string
}

// Explorer is the API explorer page.
type Explorer struct {
	Page
	// Origin is the app's origin as the browser reached it, for the curl
	// lines.
	Origin string
	Docs   []ExplorerDoc
}

// ExplorerDoc is one OpenAPI document and the operations it routes.
type ExplorerDoc struct {
	Name, Title, URL string
	Ops              []ExplorerOp
}

// ExplorerOp is one operation.
type ExplorerOp struct {
	ID, Method, Path, Summary string
	PathParams, Query         []string
	HasBody, Extension        bool
}

// Curl is the operation as a curl command line with a bearer token.
func (op ExplorerOp) Curl(origin string) string {
	var b strings.Builder
	b.WriteString(`curl -H "Authorization: Bearer $TOKEN"`)
	if op.Method != "GET" {
		b.WriteString(" -X " + op.Method)
	}
	if op.HasBody {
		b.WriteString(` -H "Content-Type: application/json" -d '{}'`)
	}
	b.WriteString(" '" + origin + op.Path + "'")
	return b.String()
}

// Names is the Names page.
type Names struct {
	Page
	FeeUSD   string
	Lifetime string
	Suffix   string
	Rows     []NameRow
	Form     NameForm
}

// NameRow is one of the user's names; State is "active", "expired",
// "requested" (its subscription waits for the user to accept it) or
// "collecting" (paid, waiting for the network's collection).
type NameRow struct {
	Name, URL, Description string
	State                  string
	Expires                time.Time
	SubscriptionRequest    string
}

// NameForm is the request form, kept when it is refused.
type NameForm struct {
	CSRF                   string
	Name, URL, Description string
	Error                  string
}

// Receive is the Receive page (issue 37 point 3).
type Receive struct {
	Page
	// Party is the user's whole party ID, Name its name ("" for none).
	Party, Name string
	// QR is Party as a QR code.
	QR QRCode
	// Preapproved says whether others can send in one step, until
	// PreapprovalExpires.
	Preapproved        bool
	PreapprovalExpires time.Time
}
