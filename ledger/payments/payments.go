// Package payments owns what the payment workflows (ledger/apppayments,
// ledger/subscriptions and the name service paid by a subscription)
// share: their templates, the units of a payment's amount, and the rule
// for the web origin a confirm page may send its user back to (AppOrigin,
// RedirectAllowed). It imports nothing of the ledger; the core keeps
// PaymentAmount, which a transfer offer's payment carries.
package payments

import (
	"net/url"
	"strings"
)

// Templates of the subscription workflow.
const (
	TemplateSubscriptionRequest        = "#splice-wallet-payments:Splice.Wallet.Subscriptions:SubscriptionRequest"
	TemplateSubscriptionInitialPayment = "#splice-wallet-payments:Splice.Wallet.Subscriptions:SubscriptionInitialPayment"
	TemplateSubscription               = "#splice-wallet-payments:Splice.Wallet.Subscriptions:Subscription"
	TemplateSubscriptionIdleState      = "#splice-wallet-payments:Splice.Wallet.Subscriptions:SubscriptionIdleState"
	TemplateSubscriptionPayment        = "#splice-wallet-payments:Splice.Wallet.Subscriptions:SubscriptionPayment"
	TemplateTerminatedSubscription     = "#splice-wallet-payments:Splice.Wallet.Subscriptions:TerminatedSubscription"
)

// Templates of the app payment workflow (ledger/apppayments).
const (
	TemplateAppPaymentRequest  = "#splice-wallet-payments:Splice.Wallet.Payment:AppPaymentRequest"
	TemplateAcceptedAppPayment = "#splice-wallet-payments:Splice.Wallet.Payment:AcceptedAppPayment"
)

// UnitAmulet is PaymentAmount's unit for an amount in coin; the only one
// this ledger takes for an app payment.
const UnitAmulet = "AmuletUnit"

// UnitUSD is PaymentAmount's unit for an amount in USD, which a
// subscription may ask for (UnitAmulet is the other).
const UnitUSD = "USDUnit"

// The origin convention: the real AppPaymentRequest names no web origin
// for the wallet's confirm page to send its user back to, so ours is named
// in the description, which the sender sees and signs: a description that
// ends with " origin=<scheme>://<host>[:<port>]" (or is only that) names
// the app's origin, and the confirm page redirects only to a URL of
// exactly that origin. Without one it never redirects.
const originMarker = "origin="

// AppOrigin splits a request's description into the text a person reads
// and the app origin it names ("" when none, or when what follows the
// marker is not a bare http(s) origin).
func AppOrigin(description string) (text, origin string) {
	i := strings.LastIndex(description, originMarker)
	if i < 0 || i > 0 && description[i-1] != ' ' {
		return description, ""
	}
	o, ok := ParseOrigin(description[i+len(originMarker):])
	if !ok {
		return description, ""
	}
	return strings.TrimSpace(description[:i]), o
}

// ParseOrigin returns s's canonical origin (lower-case scheme and host,
// default port dropped) when s is exactly an http(s) origin.
func ParseOrigin(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", false
	}
	return canonicalOrigin(u), true
}

// canonicalOrigin is u's scheme://host[:port], lower-case, default port
// dropped.
func canonicalOrigin(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host
}

// MaxReturnURL bounds the URL a confirm page may send its user back to.
const MaxReturnURL = 2048

// RedirectAllowed reports whether target is an absolute http(s) URL of
// exactly origin (as AppOrigin returns it); "" allows nothing.
func RedirectAllowed(origin, target string) bool {
	if origin == "" || strings.ContainsAny(target, "\\\r\n\t") {
		return false
	}
	u, err := url.Parse(target)
	if err != nil || !u.IsAbs() || u.User != nil || u.Host == "" || u.Opaque != "" {
		return false
	}
	return canonicalOrigin(u) == origin
}
