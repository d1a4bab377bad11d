package web

import (
	"encoding/json"
	"fmt"
)

// UnmarshalJSON reads the claims, refusing a time claim (exp, nbf, iat)
// that is not a JSON integer: RFC 7519's NumericDate is a number of
// seconds, and the JWT library would also take a string ("exp":
// "1900000000") or a fraction, which no issuer we trust writes.
func (tc *tokenClaims) UnmarshalJSON(b []byte) error {
	var times struct {
		Exp json.RawMessage `json:"exp"`
		Nbf json.RawMessage `json:"nbf"`
		Iat json.RawMessage `json:"iat"`
	}
	if err := json.Unmarshal(b, &times); err != nil {
		return err
	}
	for _, t := range []struct {
		name string
		raw  json.RawMessage
	}{{"exp", times.Exp}, {"nbf", times.Nbf}, {"iat", times.Iat}} {
		if t.raw != nil && !isInteger(t.raw) {
			return fmt.Errorf("token %s must be a whole number of seconds, not %s", t.name, t.raw)
		}
	}
	type plain tokenClaims
	return json.Unmarshal(b, (*plain)(tc))
}

// isInteger reports whether raw is a JSON integer literal (digits,
// perhaps a leading minus; no fraction or exponent).
func isInteger(raw []byte) bool {
	if len(raw) > 0 && raw[0] == '-' {
		raw = raw[1:]
	}
	if len(raw) == 0 || len(raw) > 19 {
		return false
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
