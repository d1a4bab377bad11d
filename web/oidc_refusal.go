package web

import (
	"errors"
	"fmt"
	"strings"
)

// LoginRefused is a login callback that logs nobody in. Message is for the
// person at the browser, in words, with what to do; Detail is for the log.
// It matches ErrLogin.
type LoginRefused struct {
	Message, Detail string
}

func (e *LoginRefused) Error() string        { return "login refused: " + e.Detail }
func (e *LoginRefused) Is(target error) bool { return target == ErrLogin }

// ErrProviderMisconfigured is a provider whose discovery document does not
// fit the wallet's configuration (another issuer): nobody can log in until
// the operator fixes oidc.issuer; retrying does not help.
var ErrProviderMisconfigured = errors.New("the login service is not set up correctly")

// Messages of the refusals a person meets.
const (
	msgLoginStale = "This login has expired or was already used (the page was reloaded, went back, or came from an old link). Please log in again."
	msgLoginOther = "This login does not belong to this browser window (it may have been started in another tab). Please log in again."
	msgLoginCode  = "The identity provider did not accept this login (it may have been used already or have expired). Please log in again."
	msgLoginProof = "The identity provider's answer could not be verified, so you are not logged in. Please try again; if it keeps happening, tell the wallet's operator."
)

func refused(msg, detail string, args ...any) *LoginRefused {
	return &LoginRefused{Message: msg, Detail: fmt.Sprintf(detail, args...)}
}

// providerRefusal words the error a provider sent back to the callback
// (RFC 6749 §4.1.2.1, OpenID Connect Core §3.1.2.6).
func providerRefusal(code, description string) *LoginRefused {
	var msg string
	switch code {
	case "access_denied":
		msg = "You did not allow the wallet to use your account at the identity provider (or it refused you), so you are not logged in. Log in again if that was a mistake."
	case "login_required", "interaction_required", "consent_required", "account_selection_required":
		msg = "The identity provider needs you to log in or confirm again. Please log in again."
	case "temporarily_unavailable", "server_error":
		msg = "The identity provider could not complete the login just now. Please try again in a few minutes."
	default:
		msg = "The identity provider refused the login. Please try again; if it keeps happening, tell the wallet's operator (the provider said: " + plainCode(code) + ")."
	}
	return refused(msg, "the provider answered %q: %q", code, description)
}

// plainCode keeps a provider's error code short and plain for a page.
func plainCode(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}
