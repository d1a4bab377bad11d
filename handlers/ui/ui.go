package ui

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers/shared"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/static"
	"github.com/ccwallet/ccwallet/views"
	"github.com/ccwallet/ccwallet/web"
)

// Config configures the web wallet.
type Config struct {
	Sessions *web.Sessions
	Login    *web.OIDCLogin
	// DevProvider is the built-in development OpenID Provider, mounted at
	// /dev-oidc/ (nil outside a development network).
	DevProvider http.Handler
	// Automations lists the automations for the admin page (nil: none yet).
	Automations Automations
	// BaseURL is the wallet's public URL, where the provider sends the
	// browser after logout.
	BaseURL string
	// EventInterval is how often /events looks for new history and changed
	// offers (default DefaultEventInterval).
	EventInterval time.Duration
	// EventStreamsPerSession, EventStreamsPerUser and EventStreams cap the
	// open /events streams (429 past them); 0 means the Default* caps.
	EventStreamsPerSession, EventStreamsPerUser, EventStreams int
	// Shutdown ends open /events streams when the server stops.
	Shutdown <-chan struct{}
	// Limits bounds login attempts and form posts (ui_limits.go).
	Limits UILimits
}

// Automations is what the admin page shows about the background
// automations; the scheduler implements it.
type Automations interface {
	Automations(ctx context.Context) ([]AutomationStatus, error)
}

// AutomationStatus is one automation's state.
type AutomationStatus struct {
	Name      string
	LastRun   time.Time
	NextRun   time.Time
	LastError string
}

// uiFunc is a page handler of a logged-in user; a returned error becomes an
// error page (or an inline message where the handler chooses).
type uiFunc func(w http.ResponseWriter, r *http.Request, s *web.Session) error

// nav is the navigation: the tabs (Home, Send, Receive, Activity; a
// phone's bottom bar), the rest under More, and the operator's pages in
// their own section of it, shown only to the operator's own wallet (not
// while viewing as another party, where uiOperatorOnly refuses them too).
// A new page is one line here plus its routes.
func (h *Handler) nav(s *web.Session) []views.NavItem {
	items := []views.NavItem{
		{Key: "home", Label: "Home", Href: "/"},
		{Key: "send", Label: "Send", Href: "/send"},
		{Key: "receive", Label: "Receive", Href: "/receive"},
		{Key: "history", Label: "Activity", Href: "/history"},
		{Key: "offers", Label: "Offers", Href: "/offers", Group: views.NavMore},
		{Key: "payments", Label: "Payments", Href: "/payments", Group: views.NavMore},
		{Key: "subscriptions", Label: "Subscriptions", Href: "/subscriptions", Group: views.NavMore},
		{Key: "allocations", Label: "Allocations", Href: "/allocations", Group: views.NavMore},
		{Key: "approvals", Label: "Approvals", Href: "/approvals", Group: views.NavMore},
		{Key: "names", Label: "Names", Href: "/names", Group: views.NavMore},
		{Key: "rewards", Label: "Rewards", Href: "/rewards", Group: views.NavMore},
		{Key: "traffic", Label: "Traffic", Href: "/traffic", Group: views.NavMore},
		{Key: "holdings", Label: "Holdings", Href: "/holdings", Group: views.NavMore},
	}
	if users.Of(h.l).IsAdmin(s.User) && s.ActAs == "" {
		items = append(items, views.NavItem{Key: "delegations", Label: "Delegations", Href: "/delegations", Group: views.NavOperator})
	}
	if users.Of(h.l).IsAdmin(s.User) {
		items = append(items, views.NavItem{Key: "admin", Label: "Admin", Href: "/admin", Group: views.NavOperator})
	}
	return items
}

// page builds the layout model of a logged-in page.
func (h *Handler) page(s *web.Session, title, active string) views.Page {
	return views.Page{Title: title, User: s.User, CSRF: s.CSRF, Nav: h.nav(s), Active: active, DevNet: h.l.DevNet(), ViewAs: s.ActAs}
}

// livePage is page with live updates (/events).
func (h *Handler) livePage(s *web.Session, title, active string) views.Page {
	p := h.page(s, title, active)
	p.Events = "/events"
	return p
}

// minimalPage is page without navigation, for a page with one thing to
// decide (onboarding).
func (h *Handler) minimalPage(s *web.Session, title string) views.Page {
	p := h.page(s, title, "")
	p.Minimal = true
	return p
}

// Routes registers every page of the web wallet on mux. Every route is
// behind Go's cross-origin protection (Sec-Fetch-Site / Origin), and every
// POST also needs the session's CSRF token (see h.session).
func (h *Handler) Routes(mux *http.ServeMux) {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
	}))
	handle := func(pattern string, hd http.Handler) { mux.Handle(pattern, cop.Handler(hd)) }
	ap, dp, pp := adminPages{h}, delegationPages{h}, paymentPages{h} // pagegroups.go

	handle("GET /static/", static.Handler())
	handle("GET /favicon.ico", static.Redirect("favicon.svg"))
	if h.ui.DevProvider != nil {
		handle("/dev-oidc/", h.devLoginLimited(h.ui.DevProvider))
	}
	handle("GET /{$}", http.HandlerFunc(h.uiRoot))
	handle("GET /login", h.loginLimited(http.HandlerFunc(h.uiLogin)))
	handle("GET /auth/callback", h.loginLimited(http.HandlerFunc(h.uiCallback)))
	handle("POST /logout", http.HandlerFunc(h.uiLogout))
	handle("GET /onboard", h.session(h.uiOnboardPage))
	handle("POST /onboard", h.session(h.uiOnboard))
	handle("GET /home/live", h.session(h.onboarded(h.uiHomeLive)))
	handle("GET /home/incoming", h.session(h.onboarded(h.uiHomeIncoming)))
	handle("GET /home/outgoing", h.session(h.onboarded(h.uiHomeOutgoing)))
	handle("GET /holdings", h.session(h.onboarded(h.uiHoldings)))
	handle("POST /tap", h.session(h.onboarded(h.uiTap)))
	handle("GET /history", h.session(h.onboarded(h.uiHistory)))
	handle("GET /history.csv", h.session(h.onboarded(h.uiHistoryCSV)))
	handle("GET /rewards", h.session(h.onboarded(h.uiRewards)))
	handle("GET /events", h.session(h.onboarded(h.uiEvents)))
	handle("GET /receive", h.session(h.onboarded(h.uiReceive)))
	handle("GET /send", h.session(h.onboarded(h.uiSendPage)))
	handle("GET /send/check", h.session(h.onboarded(h.uiSendCheck)))
	handle("GET /send/usd", h.session(h.onboarded(h.uiSendUSD)))
	handle("POST /send", h.session(h.onboarded(h.uiSend)))
	handle("GET /offers", h.session(h.onboarded(h.uiOffers)))
	handle("GET /offers/live", h.session(h.onboarded(h.uiOffersLive)))
	handle("POST /offers/{cid}/{action}", h.session(h.onboarded(h.uiTransferAction("offers"))))
	handle("POST /instructions/{cid}/{action}", h.session(h.onboarded(h.uiTransferAction("instructions"))))
	handle("GET /allocations", h.session(h.onboarded(h.uiAllocations)))
	handle("GET /allocations/live", h.session(h.onboarded(h.uiAllocationsLive)))
	handle("POST /allocations/{cid}/{action}", h.session(h.onboarded(h.uiAllocationAction)))
	handle("GET /approvals", h.session(h.onboarded(dp.uiDelegations)))
	handle("POST /preapproval", h.session(h.onboarded(dp.uiCreatePreapproval)))
	handle("POST /merge-delegation", h.session(h.onboarded(dp.uiProposeMerge)))
	handle("POST /featured-app-right", h.session(h.onboarded(dp.uiFeaturedAppRight)))
	handle("POST /preapproval/revoke", h.session(h.onboarded(dp.uiRevokePreapproval)))
	handle("POST /merge-delegation/withdraw", h.session(h.onboarded(dp.uiWithdrawMerge)))
	handle("GET /delegations", h.session(h.onboarded(h.uiOperatorOnly(ap.uiMintingDelegations))))
	handle("POST /delegations/{cid}/{action}", h.session(h.onboarded(h.uiOperatorOnly(ap.uiMintingDelegationAction))))
	handle("GET /names", h.session(h.onboarded(pp.uiNames)))
	handle("POST /names", h.session(h.onboarded(pp.uiRequestName)))
	handle("GET /traffic", h.session(h.onboarded(h.uiTraffic)))
	handle("GET /subscriptions", h.session(h.onboarded(pp.uiSubscriptions)))
	handle("POST /subscriptions/{cid}/{action}", h.session(h.onboarded(pp.uiSubscriptionAction)))
	handle("GET /confirm-subscription/{cid}", h.session(h.onboarded(pp.uiConfirmSubscription)))
	handle("POST /confirm-subscription/{cid}/{action}", h.session(h.onboarded(pp.uiConfirmSubscriptionAction)))
	handle("POST /traffic", h.session(h.onboarded(h.uiBuyTraffic)))
	handle("GET /api-explorer", h.session(h.uiExplorer))
	handle("GET /payments", h.session(h.onboarded(pp.uiAppPayments)))
	handle("GET /confirm-payment/{cid}", h.session(h.onboarded(pp.uiConfirmPayment)))
	handle("POST /confirm-payment/{cid}/{action}", h.session(h.onboarded(pp.uiConfirmPaymentAction)))
	handle("GET /admin", h.session(h.uiAdminOnly(ap.uiAdmin)))
	handle("POST /admin/users", h.session(h.uiAdminOnly(ap.uiAdminOnboard)))
	handle("POST /admin/users/offboard", h.session(h.uiAdminOnly(ap.uiAdminOffboard)))
	handle("POST /admin/view-as", h.session(h.uiAdminOnly(ap.uiViewAs)))
	handle("POST /view-as/stop", h.session(ap.uiStopViewAs))
}

// session runs fn for a logged-in user. Without a live session a page
// request goes to the login; a POST also needs the session's CSRF token.
func (h *Handler) session(fn uiFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		post := r.Method != http.MethodGet && r.Method != http.MethodHead
		if post && !h.allowForm(w, r, nil) {
			return
		}
		s, err := h.ui.Sessions.Load(r)
		if errors.Is(err, web.ErrLoginEnded) {
			h.loginEnded(w, r)
			return
		}
		if err != nil && !errors.Is(err, web.ErrNoSession) {
			h.sessionsDown(w, r, err)
			return
		}
		if err != nil {
			if !post {
				redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()))
				return
			}
			h.uiError(w, r, nil, httpError(http.StatusUnauthorized, "your session has ended; log in again"))
			return
		}
		if post {
			if !h.allowForm(w, r, s) {
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
			if !s.CheckCSRF(r) {
				h.uiError(w, r, s, forbidden("the form is out of date (missing or wrong CSRF token); reload the page and try again"))
				return
			}
		}
		if err := fn(w, r, s); err != nil {
			h.uiError(w, r, s, err)
		} else if post {
			h.events.nudge()
		}
	})
}

// sessionsDown answers a request whose session could not be checked (the
// session store did not answer): 503 in words, not the login or the
// landing page, since the user's login may well be live (and a live
// reload swapping in a login page would leave the page it updates).
func (h *Handler) sessionsDown(w http.ResponseWriter, r *http.Request, err error) {
	h.log.WarnContext(r.Context(), "web session could not be checked", "err", err)
	w.Header().Set("Retry-After", "5")
	h.uiError(w, r, nil, httpError(http.StatusServiceUnavailable, "the wallet cannot check your login just now; try again in a moment"))
}

// onboarded runs fn for a user with a party; others go to onboarding.
func (h *Handler) onboarded(fn uiFunc) uiFunc {
	return func(w http.ResponseWriter, r *http.Request, s *web.Session) error {
		if s.ActAs != "" { // an admin viewing the wallet as another party
			party := s.ActAs
			ctx, err := shared.ActingAs(r.Context(), h.w.Devnet, s.User, coin.PartyID(party))
			if err != nil {
				// Refused now (no longer an admin, not a development
				// network): back to one's own wallet, and say why.
				_ = h.ui.Sessions.SetActAs(w, r, s, "")
				return forbidden("you can no longer view the wallet as " + party + ": " + err.Error())
			}
			return fn(w, r.WithContext(ctx), s)
		}
		p, err := users.Of(h.l).PartyOf(r.Context(), s.User)
		if errors.Is(err, fault.ErrNotFound) {
			redirect(w, r, "/onboard")
			return nil
		}
		if err != nil {
			return err
		}
		return fn(w, r.WithContext(shared.WithParty(r.Context(), p)), s)
	}
}

// uiParty is the party onboarded put in the context.
func uiParty(r *http.Request) coin.PartyID {
	p, _ := shared.Party(r.Context())
	return p
}

// uiAdminOnly runs fn for the validator operator's wallet admins, else 403.
func (h *Handler) uiAdminOnly(fn uiFunc) uiFunc {
	return func(w http.ResponseWriter, r *http.Request, s *web.Session) error {
		if !users.Of(h.l).IsAdmin(s.User) {
			return forbidden("this page is for the validator operator's wallet admins")
		}
		return fn(w, r, s)
	}
}

// uiOperatorOnly runs fn for the validator operator's party (after
// onboarded), else 403: the ledger's rule (delegations' OperatorOnly).
func (h *Handler) uiOperatorOnly(fn uiFunc) uiFunc {
	return func(w http.ResponseWriter, r *http.Request, s *web.Session) error {
		if err := h.w.Delegations.OperatorOnly(uiParty(r)); err != nil {
			return err
		}
		return fn(w, r, s)
	}
}

// isFragment reports an htmx request that wants a fragment, not a page: a
// boosted request swaps the whole body and so gets the full page.
func isFragment(r *http.Request) bool {
	return r.Header.Get("HX-Request") == "true" && r.Header.Get("HX-Boosted") != "true"
}

// redirect answers 303 See Other, or HX-Redirect for htmx, so a POST is
// never repeated by a reload.
func redirect(w http.ResponseWriter, r *http.Request, to string) {
	if r.Header.Get("HX-Request") == "true" {
		w.Header().Set("HX-Redirect", to)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// render writes a component with a status. Pages carry user data, so they
// are never cached.
func render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) error {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Add("Vary", "HX-Request") // beside web.Compress's Accept-Encoding
	buf := pageBufs.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledPage {
			pageBufs.Put(buf)
		}
	}()
	// Whole, then written once: a render that failed halfway had already
	// sent its status and half a page; now the caller's error page
	// answers instead.
	if err := c.Render(flashContext(r), buf); err != nil {
		return err
	}
	w.WriteHeader(status)
	_, err := w.Write(buf.Bytes())
	return err
}

// pageBufs keeps render's buffers; one larger than maxPooledPage (a rare
// huge page) is left to the collector rather than kept.
var pageBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledPage = 1 << 20

// uiError renders err as an error page with the status table's status.
func (h *Handler) uiError(w http.ResponseWriter, r *http.Request, s *web.Session, err error) {
	if clientGone(h.log, r, err) {
		return
	}
	status, msg := statusOf(err)
	if status >= 500 {
		h.log.ErrorContext(r.Context(), "page failed", "method", r.Method, "path", r.URL.Path, "status", status, "err", err,
			"request_id", web.RequestIDFrom(r.Context()))
	}
	p := views.Page{Title: http.StatusText(status)}
	if s != nil {
		p = h.page(s, http.StatusText(status), "")
	}
	m := views.ErrorPage{Page: p, Status: status, Message: msg}
	page := views.ErrorView(m)
	if status >= 500 {
		m.Reference = web.RequestIDFrom(r.Context())
		if r.Method == http.MethodGet {
			m.Retry = web.LocalPath(r.URL.RequestURI())
		}
		page = views.ServerErrorView(m)
	}
	if err := render(w, r, status, page); err != nil {
		h.log.DebugContext(r.Context(), "render error page", "err", err)
	}
}

// inline reports whether err is the user's mistake (a bad amount, an
// unknown party, too little money), shown next to the form with 422, and
// its message in people's words (see sentence).
func inline(err error) (string, bool) {
	status, msg := statusOf(err)
	switch status {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusConflict:
		return sentence(msg), true
	}
	return "", false
}

// fieldPrefix is the "amount: " the JSON API's messages start with.
var fieldPrefix = regexp.MustCompile(`^[a-z][a-z_]*: `)

// sentence turns an error message of the JSON API ("amount: enter an
// amount greater than 0") into the form's words ("Enter an amount greater
// than 0."): next to the form, the field is plain. A message starting
// with an ID ("bob::1220…") keeps its case.
func sentence(msg string) string {
	msg = fieldPrefix.ReplaceAllString(msg, "")
	if first, _, _ := strings.Cut(msg, " "); first != "" && first == strings.ToLower(first) && !strings.ContainsAny(first, ":\"") {
		msg = strings.ToUpper(msg[:1]) + msg[1:]
	}
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// settled runs fn, a form submission carrying the form's idempotency id,
// again while another submission of the same form is still in flight (a
// double click): the ledger answers that one ErrInFlight (429), but the
// browser shows whichever answer comes last, so every submission waits for
// the settled outcome instead (done, a duplicate of what was done, or its
// own real error when the first one failed).
func settled(ctx context.Context, fn func() error) error {
	delay := 5 * time.Millisecond
	for deadline := time.Now().Add(5 * time.Second); ; delay = min(2*delay, 200*time.Millisecond) {
		err := fn()
		if !errors.Is(err, fault.ErrInFlight) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return err
		}
	}
}
