package web

import "net/http"

// Optional is Require for routes that also serve anonymous callers: without
// an Authorization header the request passes with no claims, but a token that
// is present must be valid. Silently treating a bad token as anonymous would
// hide expired sessions from the client.
func (v *Verifier) Optional(next http.Handler) http.Handler {
	return v.middleware(next, false)
}
