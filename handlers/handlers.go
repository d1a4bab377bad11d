// Package handlers is the app port: it puts the JSON APIs (handlers/api)
// and the web wallet (handlers/ui) on one listener, with what lies around
// both: the middleware chain, the gates of a restore and of a turned-off
// wallet, and the 404 and 405 answers in the shape the client reads
// (unrouted.go). Each surface has its own route table; the rules live in
// package ledger.
package handlers

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/handlers/api"
	"github.com/ccwallet/ccwallet/handlers/shared"
	"github.com/ccwallet/ccwallet/handlers/ui"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/web"
)

// The configuration types cmd fills, defined where they are used.
type (
	// UI configures the web wallet (ui.Config).
	UI = ui.Config
	// UILimits bounds login attempts and form posts (ui.UILimits).
	UILimits = ui.UILimits
	// Automations is what the admin page shows about the background
	// automations (ui.Automations).
	Automations = ui.Automations
	// AutomationStatus is one automation's state (ui.AutomationStatus).
	AutomationStatus = ui.AutomationStatus
	// NetworkSetting is one network configuration key on the admin page
	// (ui.NetworkSetting).
	NetworkSetting = ui.NetworkSetting
	// JobStatus is one background job (shared.JobStatus).
	JobStatus = shared.JobStatus
)

// Status maps an error to its HTTP status and the message the client sees
// (shared.Status).
func Status(err error) (int, string) { return shared.Status(err) }

// Config is what the handlers need beyond the ledger.
type Config struct {
	// Auth verifies bearer tokens of the JSON APIs.
	Auth *web.Verifier
	// Observe is extra middleware (e.g. web.Metrics) placed inside
	// RequestID and Logger, where the route pattern is visible.
	Observe []web.Middleware
	// UI is the web wallet; nil serves the JSON APIs only.
	UI *UI
	// Limiter bounds each authenticated user's request rate (429 past it);
	// nil means no limit.
	Limiter *web.Limiter
	// Jobs reports the background jobs' status (GET /v0/admin/jobs); nil
	// when this process runs none.
	Jobs func() []JobStatus
	// Network lists the configuration keys that concern a real
	// multi-validator network, for the admin page; cmd fills it from the
	// validated configuration with secrets masked.
	Network []NetworkSetting
	// Warnings are the configuration's security warnings, shown to admins
	// on the admin page and on /readyz.
	Warnings []string
	// WalletOff is enableWallet: false: the wallet's API and pages answer
	// 503; the validator's admin API, the registry and health still work.
	WalletOff bool
	// UpdateStreamsPerUser and UpdateStreams cap the open
	// /v0/updates/stream streams (0: the Default* caps);
	// UpdateStreamInterval is how often they read the log (default 1s).
	UpdateStreamsPerUser, UpdateStreams int
	UpdateStreamInterval                time.Duration
	// Shutdown ends open update streams when the server stops.
	Shutdown <-chan struct{}
}

// Handler serves every HTTP route of the app port.
type Handler struct {
	l         *ledger.Ledger
	log       *slog.Logger
	obs       []web.Middleware
	api       *api.Handler
	ui        *ui.Handler // nil: the JSON APIs only
	walletOff bool        // see Config.WalletOff
}

// New builds the handlers.
func New(l *ledger.Ledger, cfg Config, log *slog.Logger) *Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &Handler{l: l, log: log, obs: cfg.Observe, walletOff: cfg.WalletOff}
	acfg := api.Config{Auth: cfg.Auth, Limiter: cfg.Limiter, Jobs: cfg.Jobs,
		UpdateStreamsPerUser: cfg.UpdateStreamsPerUser, UpdateStreams: cfg.UpdateStreams,
		UpdateStreamInterval: cfg.UpdateStreamInterval, Shutdown: cfg.Shutdown}
	if cfg.UI != nil {
		acfg.Sessions = cfg.UI.Sessions
		acfg.Changed = func() { h.ui.Changed() } // h.ui is built next
	}
	h.api = api.New(l, acfg, log)
	if cfg.UI != nil {
		h.ui = ui.New(l, cfg.UI, ui.Extras{Jobs: cfg.Jobs, Network: cfg.Network, Warnings: cfg.Warnings,
			Operations: h.api.Operations}, log)
	}
	return h
}

// Routes returns the app port's handler: the JSON APIs at the root, as the
// mission lists them, and under /api/validator, the base path of the
// public specs' servers entry; the web wallet's pages beside them.
func (h *Handler) Routes(health http.Handler) http.Handler {
	mux := http.NewServeMux()
	h.api.Routes(mux, health) // the JSON APIs (handlers/api/api.go)

	root := http.NewServeMux()
	mux.Handle("/", h.unrouted(mux, root)) // 404 and 405 as JSON or a page

	apis := h.walletGate(mux)
	root.Handle("/api/validator/", http.StripPrefix("/api/validator", apis))
	root.Handle("/", apis)
	if h.ui != nil {
		h.ui.Routes(root) // the web wallet (handlers/ui/ui.go)
	}
	mws := append([]web.Middleware{web.RequestID, web.Logger(h.log)}, h.obs...)
	return web.Chain(h.restoreGate(root), append(mws, web.Recover(h.log), web.SecurityHeaders, web.Compress, web.RejectNUL)...)
}

// restoreGate answers 503 with Retry-After to the requests that arrive
// while a development network is restored or reset, and lets the restore
// wait for those in flight (Ledger.Admit). Exempt: the snapshot endpoints
// (a restore must not wait for itself), the probes, static files and the
// live-update streams (/events and /v0/updates/stream), which only read,
// may stay open for hours and follow a restore (OnRestore). A production
// network has no gate.
func (h *Handler) restoreGate(next http.Handler) http.Handler {
	if !h.l.DevNet() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if strings.Contains(p, "/v0/admin/devnet/snapshots") || strings.HasSuffix(p, "/v0/admin/devnet/reset") || strings.HasSuffix(p, "/v0/admin/devnet/seed") ||
			p == "/events" || strings.HasSuffix(p, "/v0/updates/stream") || p == "/readyz" || p == "/livez" || strings.HasPrefix(p, "/static/") {
			next.ServeHTTP(w, r)
			return
		}
		done, err := h.l.Admit()
		if err != nil {
			w.Header().Set("Retry-After", "1")
			web.WriteError(w, http.StatusServiceUnavailable, "The development network is being restored from a snapshot or reset; retry in a moment.")
			return
		}
		defer done()
		next.ServeHTTP(w, r)
	})
}
