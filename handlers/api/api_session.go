package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers/shared"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/web"
)

// authed lets an API request through with a valid bearer token
// (web.Verifier.Require), or with the web wallet's session: its cookie
// plus the session's CSRF token in X-CSRF-Token, which is how the API
// explorer page calls the API as the logged-in user. The cookie alone
// never authenticates: a cross-site page can make the browser send it but
// can neither read the CSRF token nor set the header (the API answers no
// CORS preflight), and what a browser marks as coming from another site is
// refused anyway.
func (h *Handler) authed(next http.Handler) http.Handler {
	next = h.impersonated(next)
	bearer := h.auth.Require(next)
	if h.sessions == nil {
		return bearer
	}
	cop := http.NewCrossOriginProtection()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" || r.Header.Get("X-CSRF-Token") == "" {
			bearer.ServeHTTP(w, r)
			return
		}
		// Go's check passes every GET; a browser's Sec-Fetch-Site says
		// where any request came from.
		if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" || cop.Check(r) != nil {
			web.WriteError(w, http.StatusForbidden, "cross-origin request refused")
			return
		}
		s, err := h.sessions.Load(r)
		if err != nil || !s.CheckCSRF(r) {
			w.Header().Set("WWW-Authenticate", "Bearer")
			web.WriteError(w, http.StatusUnauthorized, "no live session with this CSRF token; log in again or send Authorization: Bearer <token>")
			return
		}
		next.ServeHTTP(w, r.WithContext(web.WithClaims(r.Context(), web.Claims{Subject: s.User, Issuer: "session", ActAs: s.ActAs})))
	})
}

// impersonated honours a token's (or a "view as" session's) act-as claim:
// on a development network an admin acts as the party it names, and the
// ledger records the admin in each update's acted_by (devnet.Service.Impersonate
// is the rule). Anywhere else the claim is refused, never ignored: a
// client must not believe it acted as a party when it did not.
func (h *Handler) impersonated(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := web.ClaimsFrom(r.Context())
		if c.ActAs == "" {
			next.ServeHTTP(w, r)
			return
		}
		ctx, err := h.actingAs(r.Context(), c.Subject, coin.PartyID(c.ActAs))
		if err != nil {
			if errors.Is(err, fault.ErrDisabled) {
				err = forbidden(err.Error())
			}
			writeError(h.log, w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// actingAs checks that user may act as party (shared.ActingAs).
func (h *Handler) actingAs(ctx context.Context, user string, party coin.PartyID) (context.Context, error) {
	return shared.ActingAs(ctx, h.w.Devnet, user, party)
}
