package handlers

import (
	"net/http"
	"strings"

	"github.com/ccwallet/ccwallet/handlers/shared"
	"github.com/ccwallet/ccwallet/handlers/ui"
	"github.com/ccwallet/ccwallet/web"
)

// walletOffMsg is the answer to the wallet's routes with enableWallet: false.
const walletOffMsg = "the wallet is disabled on this validator (enableWallet: false)"

// walletAPIPath reports the wallet's own API: the paths of
// wallet-internal.yaml and wallet-external.yaml. enableWallet: false turns
// these off; the validator's API (validator-internal.yaml: admin users,
// external parties, preapprovals), the registry and health keep working.
func walletAPIPath(p string) bool {
	return strings.HasPrefix(p, "/v0/wallet/") || p == "/v0/feature-support" ||
		p == "/v0/allocations" || strings.HasPrefix(p, "/v0/allocations/")
}

// walletGate answers 503 for the wallet's API when the wallet is off.
func (h *Handler) walletGate(next http.Handler) http.Handler {
	if !h.walletOff {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if walletAPIPath(r.URL.Path) {
			web.WriteError(w, http.StatusServiceUnavailable, walletOffMsg)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// probeMethods are the methods an unrouted request's path is tried with to
// tell 405 (the path has routes for other methods) from 404.
var probeMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// unrouted answers what no route takes, in the shape the client reads: 405
// with Allow when the path has routes for other methods, else 404; as
// {"error": ...} for the JSON APIs (/v0, /api, /registry) and clients that
// ask for JSON, and as a page with a way back home otherwise. api is the
// JSON mux this is the catch-all of, root the app port's mux (the pages).
func (h *Handler) unrouted(api, root *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// No route matched: the mux set this catch-all's "/" on the
		// request web.Metrics and web.Logger read; they say "unmatched".
		r.Pattern = ""
		// Under /api/validator the path was stripped: only the API's
		// routes count there, never a page's.
		viaPrefix := strings.HasPrefix(r.RequestURI, "/api/")
		var allow []string
		for _, m := range probeMethods {
			probe := *r
			probe.Method = m
			if _, p := api.Handler(&probe); p != "" && p != "/" {
				allow = append(allow, m)
				continue
			}
			if _, p := root.Handler(&probe); !viaPrefix && p != "" && p != "/" && p != "/api/validator/" {
				allow = append(allow, m)
			}
		}
		err := shared.NotFound("no such endpoint: " + r.Method + " " + r.URL.Path)
		if len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			err = shared.Error(http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed on "+r.URL.Path+"; use "+strings.Join(allow, " or "))
		}
		if viaPrefix || wantsJSON(r) || h.ui == nil && !h.walletOff {
			shared.WriteError(h.log, w, r, err)
			return
		}
		if h.walletOff { // every page is the wallet's
			w.Header().Del("Allow")
			ui.WalletOff(w, r)
			return
		}
		if len(allow) == 0 {
			err = shared.NotFound("There is no page at " + r.URL.Path + ".")
		}
		h.ui.NotRouted(w, r, err)
	})
}

// wantsJSON reports a JSON API path (or a health probe), or a client that
// asked for JSON and not for a page.
func wantsJSON(r *http.Request) bool {
	p := r.URL.Path
	if p == "/readyz" || p == "/livez" {
		return true
	}
	for _, prefix := range []string{"/v0/", "/api/", "/registry/"} {
		if strings.HasPrefix(p, prefix) || p+"/" == prefix {
			return true
		}
	}
	// application/json, and its kin such as application/problem+json.
	accept := r.Header.Get("Accept")
	return strings.Contains(accept, "json") && !strings.Contains(accept, "text/html")
}
