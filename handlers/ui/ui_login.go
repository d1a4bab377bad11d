package ui

import (
	"cmp"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/views"
	"github.com/ccwallet/ccwallet/web"
)

// uiRoot serves GET /: the landing page when logged out, onboarding for a
// user without a party, else the home page.
func (h *Handler) uiRoot(w http.ResponseWriter, r *http.Request) {
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
		m := views.Landing{Page: views.Page{Title: "Welcome", DevNet: h.l.DevNet()}, DevProvider: h.ui.DevProvider != nil}
		if err := render(w, r, http.StatusOK, views.LandingPage(m)); err != nil {
			h.log.DebugContext(r.Context(), "render landing", "err", err)
		}
		return
	}
	// As h.session does for a GET, with the session loaded once: each load
	// is a database read.
	if err := h.onboarded(h.uiHome)(w, r, s); err != nil {
		h.uiError(w, r, s, err)
	}
}

// uiLogin serves GET /login: it starts the OpenID Connect login.
func (h *Handler) uiLogin(w http.ResponseWriter, r *http.Request) {
	next := web.LocalPath(r.URL.Query().Get("next"))
	if _, err := h.ui.Sessions.Load(r); err == nil {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	// The login cookie is per host: start on the public URL's host, where
	// the provider will send the browser back.
	if u, err := url.Parse(h.ui.BaseURL); err == nil && u.Host != "" && r.Host != u.Host {
		http.Redirect(w, r, h.ui.BaseURL+"/login?next="+url.QueryEscape(next), http.StatusSeeOther)
		return
	}
	if err := h.ui.Login.Begin(w, r, next); err != nil {
		h.loginFailed(w, r, err)
	}
}

// loginFailed answers a login that could not start or finish: 503 with a
// page saying so while the provider is unreachable (OIDCLogin logs that
// once per outage), else the error page.
func (h *Handler) loginFailed(w http.ResponseWriter, r *http.Request, err error) {
	var msg string
	switch {
	case errors.Is(err, web.ErrProviderUnreachable):
		w.Header().Set("Retry-After", "30")
		msg = "The login service is unreachable right now, so nobody can log in. Your wallet and its funds are not affected; please try again in a few minutes."
	case errors.Is(err, web.ErrProviderMisconfigured):
		msg = "The wallet's login is not set up correctly (its identity provider answers under another address than the one configured), so nobody can log in until the wallet's operator fixes it. Your wallet and its funds are not affected."
	default:
		h.uiError(w, r, nil, err)
		return
	}
	m := views.ErrorPage{Page: views.Page{Title: "Login unavailable", DevNet: h.l.DevNet()}, Status: http.StatusServiceUnavailable,
		Message: msg}
	if err := render(w, r, http.StatusServiceUnavailable, views.ErrorView(m)); err != nil {
		h.log.DebugContext(r.Context(), "render login unavailable", "err", err)
	}
}

// loginEnded answers a request whose session the provider no longer backs
// (it refused to renew it): the session has ended; a page says so in words,
// with the way to log in again, instead of an error.
func (h *Handler) loginEnded(w http.ResponseWriter, r *http.Request) {
	h.ui.Sessions.End(w, r, nil) // the cookie: the session is gone already
	m := views.Landing{Page: views.Page{Title: "Logged out", DevNet: h.l.DevNet()}, DevProvider: h.ui.DevProvider != nil,
		Error: "You have been logged out: your identity provider no longer accepts this login (it was revoked, your consent withdrawn, or your account changed). Log in again to go on."}
	if err := render(w, r, http.StatusUnauthorized, views.LandingPage(m)); err != nil {
		h.log.DebugContext(r.Context(), "render login ended", "err", err)
	}
}

// uiCallback serves GET /auth/callback, the provider's redirect back: a
// verified ID token starts a new session for its subject.
func (h *Handler) uiCallback(w http.ResponseWriter, r *http.Request) {
	login, err := h.ui.Login.Finish(w, r)
	if err != nil {
		var refused *web.LoginRefused
		if errors.As(err, &refused) {
			h.log.InfoContext(r.Context(), "login refused", "err", err)
			m := views.Landing{Page: views.Page{Title: "Login failed", DevNet: h.l.DevNet()}, Error: refused.Message, DevProvider: h.ui.DevProvider != nil}
			_ = render(w, r, http.StatusUnauthorized, views.LandingPage(m))
			return
		}
		h.loginFailed(w, r, err)
		return
	}
	if _, err := h.ui.Sessions.Start(w, r, login.User, login.Tokens); err != nil {
		h.uiError(w, r, nil, err)
		return
	}
	h.log.InfoContext(r.Context(), "user logged in", "user", login.User)
	http.Redirect(w, r, web.LocalPath(login.Next), http.StatusSeeOther)
}

// uiLogout serves POST /logout: the session ends here (the old cookie is
// refused from now on) and then at the provider when it supports it.
func (h *Handler) uiLogout(w http.ResponseWriter, r *http.Request) {
	s, err := h.ui.Sessions.Load(r)
	if err != nil {
		redirect(w, r, "/")
		return
	}
	if !s.CheckCSRF(r) {
		h.uiError(w, r, s, forbidden("the form is out of date (missing or wrong CSRF token); reload the page and try again"))
		return
	}
	idToken := h.ui.Sessions.End(w, r, s)
	u := h.ui.Login.LogoutURL(r.Context(), idToken, h.ui.BaseURL+"/")
	if u == "" || strings.HasPrefix(u, h.ui.BaseURL+"/") {
		redirect(w, r, cmp.Or(u, "/?done=logged-out"))
		return
	}
	// Another origin: a page that goes on (see views.LoggingOutPage), not
	// a redirect, which the form-action policy would stop.
	w.Header().Set("Refresh", "0; url="+u)
	if err := render(w, r, http.StatusOK, views.LoggingOutPage(views.Page{Title: "Logging out", DevNet: h.l.DevNet()}, u)); err != nil {
		h.log.DebugContext(r.Context(), "render logging out", "err", err)
	}
}

// uiOnboardPage serves GET /onboard.
func (h *Handler) uiOnboardPage(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	if _, err := users.Of(h.l).PartyOf(r.Context(), s.User); err == nil {
		redirect(w, r, "/")
		return nil
	} else if !errors.Is(err, fault.ErrNotFound) {
		return err
	}
	return render(w, r, http.StatusOK, views.OnboardPage(views.Onboard{Page: h.minimalPage(s, "Welcome")}))
}

// uiOnboard serves POST /onboard: the user gets a fresh party.
func (h *Handler) uiOnboard(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	if _, err := users.Of(h.l).Onboard(r.Context(), s.User, ""); err != nil {
		msg, ok := inline(err)
		if !ok {
			return err
		}
		return render(w, r, http.StatusUnprocessableEntity, views.OnboardPage(views.Onboard{Page: h.minimalPage(s, "Welcome"), Error: msg}))
	}
	done(w, r, "/", "onboarded")
	return nil
}
