package canton

import (
	"net/http"
	"strings"
)

// tokenPrefix marks the subprotocol that carries a WebSocket's token.
const tokenPrefix = "jwt.token."

// RequestToken is the caller's token: an Authorization: Bearer header or,
// as a browser's WebSocket can send no header, the jwt.token.<token>
// subprotocol (Canton takes either on every endpoint); "" for none.
func RequestToken(r *http.Request) string {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, raw, _ := strings.Cut(h, " ")
		if !strings.EqualFold(scheme, "Bearer") {
			return ""
		}
		return strings.TrimSpace(raw)
	}
	for _, h := range r.Header.Values("Sec-WebSocket-Protocol") {
		for p := range strings.SplitSeq(h, ",") {
			if tok, ok := strings.CutPrefix(strings.TrimSpace(p), tokenPrefix); ok {
				return tok
			}
		}
	}
	return ""
}
