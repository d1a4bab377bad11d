package ui

import (
	"fmt"
	"net/http"
	"time"

	"github.com/ccwallet/ccwallet/views"
	"github.com/ccwallet/ccwallet/web"
)

// UILimits bounds the web wallet's login attempts and form posts (the JSON
// API's per-user limit is Config.Limiter). A nil limiter is no limit.
type UILimits struct {
	// Login bounds login attempts per client address: /login, the
	// provider's callback, and the development provider's authorize
	// endpoint and password form.
	Login *web.Limiter
	// FormPerSession and FormPerClient bound form posts (every POST of the
	// web wallet) per logged-in session and per client address.
	FormPerSession *web.Limiter
	FormPerClient  *web.Limiter
	// ClientAddr finds the client's address; nil uses the connection's.
	ClientAddr *web.ClientAddr
}

const (
	loginLimitedMsg = "There have been too many login attempts from your address."
	formLimitedMsg  = "You are sending forms faster than this wallet allows, so this one was not carried out."
)

// loginLimited refuses login attempts past the client address's budget.
func (h *Handler) loginLimited(next http.Handler) http.Handler {
	return h.loginLimitedAs("login:", next)
}

// loginLimitedAs keeps a budget per key prefix, so a whole login (two
// requests to the wallet, two to the development provider) costs two of
// each, not four of one.
func (h *Handler) loginLimitedAs(prefix string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ok, retry := h.ui.Limits.Login.Allow(prefix + h.ui.Limits.ClientAddr.Key(r)); !ok {
			h.tooMany(w, r, nil, loginLimitedMsg, retry)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// devLoginLimited limits the development provider's authorize endpoint
// (each call stores a pending login) and password form (each call is a
// password guess). Its discovery, keys and token endpoints are called by
// the wallet itself and are not limited.
func (h *Handler) devLoginLimited(next http.Handler) http.Handler {
	limited := h.loginLimitedAs("dev-login:", next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/dev-oidc/authorize",
			r.Method == http.MethodPost && r.URL.Path == "/dev-oidc/login":
			limited.ServeHTTP(w, r)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// allowForm takes a form post from a budget: the client address's (s nil,
// checked before the session is even read) or the session's. Past it, it
// answers 429 and returns false.
func (h *Handler) allowForm(w http.ResponseWriter, r *http.Request, s *web.Session) bool {
	lim, key := h.ui.Limits.FormPerClient, "form:"+h.ui.Limits.ClientAddr.Key(r)
	if s != nil {
		lim, key = h.ui.Limits.FormPerSession, "form:"+s.ID
	}
	ok, retry := lim.Allow(key)
	if !ok {
		h.tooMany(w, r, s, formLimitedMsg, retry)
	}
	return ok
}

// tooMany answers 429 with Retry-After: a page in the layout, or for htmx
// a fragment placed at the top of the page.
func (h *Handler) tooMany(w http.ResponseWriter, r *http.Request, s *web.Session, why string, retry time.Duration) {
	wait := fmt.Sprintf("%d seconds", web.RetryAfter(w, retry))
	if retry > 2*time.Minute {
		wait = fmt.Sprintf("%d minutes", int(retry.Minutes()+1))
	}
	msg := why + " Please wait " + wait + ", then try again."
	h.log.DebugContext(r.Context(), "rate limited", "path", r.URL.Path, "client", h.ui.Limits.ClientAddr.Of(r))
	if r.Header.Get("HX-Request") == "true" {
		w.Header().Set("HX-Retarget", "#main")
		w.Header().Set("HX-Reswap", "afterbegin")
		_ = render(w, r, http.StatusTooManyRequests, views.RateLimited(msg))
		return
	}
	p := views.Page{Title: "Too many requests", DevNet: h.l.DevNet()}
	if s != nil {
		p = h.page(s, "Too many requests", "")
	}
	_ = render(w, r, http.StatusTooManyRequests, views.ErrorView(views.ErrorPage{Page: p, Status: http.StatusTooManyRequests, Message: msg}))
}
