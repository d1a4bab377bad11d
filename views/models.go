// Package views holds the web wallet's templ components and their view
// models. Components are pure: they take a view model (with the CSRF token
// and the user as fields) and do no I/O.
package views

import "encoding/json"

// NavItem is one entry of the top navigation. Handlers build the list, so a
// new page is one more entry there.
type NavItem struct {
	Key, Label, Href string
}

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
// style) and swaps 422 responses, so validation errors render in place.
const htmxConfig = `{"includeIndicatorStyles":false,"allowEval":false,"responseHandling":[{"code":"204","swap":false},{"code":"[23]..","swap":true},{"code":"422","swap":true},{"code":"[45]..","swap":false,"error":true}]}`

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

// Balance is the balance summary of the home page.
type Balance struct {
	CC, USD, Locked, Price string
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
	Party    string
	Balance  Balance
	Holdings []HoldingRow
	Health   UTXOHealth
	// Tap is nil outside a development network.
	Tap *TapForm
}

// HistoryRow is one history entry.
type HistoryRow struct {
	ID           int64
	Time         string
	Kind         string
	Subtype      string
	Counterparty string
	Amount       string
	Fees         string
	Description  string
	Round        int64
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
}

// UserRow is one user on the admin page.
type UserRow struct {
	Name, Party string
	Admin       bool
}

// AutomationRow is one automation on the admin page.
type AutomationRow struct {
	Name, LastRun, NextRun, LastError string
}

// OnboardForm is the admin's onboard-a-user form.
type OnboardForm struct {
	CSRF    string
	Name    string
	Error   string
	Message string
}

// Admin is the validator operator's page.
type Admin struct {
	Page
	Operator    string
	Users       []UserRow
	Form        OnboardForm
	Automations []AutomationRow
}

// ErrorPage is a full-page error.
type ErrorPage struct {
	Page
	Status  int
	Message string
}
