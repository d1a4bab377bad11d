// Package ui serves the web wallet: its pages and forms, the live updates
// of /events, and login with OpenID Connect. A page handler reads the
// form, calls the ledger and renders a view model (package views); the
// rules live in package ledger, and every route is in Routes (ui.go).
package ui

import (
	"log/slog"
	"net/http"

	"github.com/ccwallet/ccwallet/apispec"
	"github.com/ccwallet/ccwallet/handlers/shared"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/views"
)

// Handler serves the web wallet.
type Handler struct {
	l          *ledger.Ledger
	log        *slog.Logger
	ui         *Config
	events     *eventHub // counts and feeds the /events streams
	jobs       func() []shared.JobStatus
	net        []NetworkSetting
	warnings   []string
	operations func() (map[string][]apispec.Operation, error)
}

// Extras is what the pages show from outside the web wallet: the admin
// page's jobs, network settings and warnings, and the API explorer's
// operations.
type Extras struct {
	// Jobs reports the background jobs' status; nil when this process runs
	// none.
	Jobs func() []shared.JobStatus
	// Network lists the configuration keys that concern a real
	// multi-validator network, secrets masked.
	Network []NetworkSetting
	// Warnings are the configuration's security warnings.
	Warnings []string
	// Operations are the served OpenAPI documents' operations
	// (api.Handler.Operations).
	Operations func() (map[string][]apispec.Operation, error)
}

// New builds the web wallet's handlers.
func New(l *ledger.Ledger, cfg *Config, x Extras, log *slog.Logger) *Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Handler{l: l, log: log, ui: cfg, events: newEventHub(l, cfg), jobs: x.Jobs, net: x.Network,
		warnings: x.Warnings, operations: x.Operations}
}

// Changed tells the open /events streams to look again now (after a JSON
// request that may have changed something).
func (h *Handler) Changed() { h.events.nudge() }

// NotRouted answers a page request no route takes with err (a 404 or 405)
// as an error page, with the menu for a logged-in user.
func (h *Handler) NotRouted(w http.ResponseWriter, r *http.Request, err error) {
	s, serr := h.ui.Sessions.Load(r)
	if serr != nil {
		s = nil
	}
	h.uiError(w, r, s, err)
}

// WalletOff answers a page request while the wallet is turned off
// (enableWallet: false): 503, a page saying so.
func WalletOff(w http.ResponseWriter, r *http.Request) {
	p := views.Page{Title: "Wallet disabled"}
	_ = render(w, r, http.StatusServiceUnavailable, views.ErrorView(views.ErrorPage{Page: p, Status: http.StatusServiceUnavailable,
		Message: "The web wallet is turned off on this validator (enableWallet: false)."}))
}
