package ui

import (
	"context"
	"net/http"
	"strings"

	"github.com/a-h/templ"

	"github.com/ccwallet/ccwallet/views"
)

// doneMessages is the one table of what a web-wallet action did, by the
// code its POST hands on: ?done=<code> after the redirect (POST, redirect,
// GET, so it works without JavaScript), or the same words swapped into the
// page for htmx. Only these fixed words are ever shown, never request text,
// so a crafted link cannot make the wallet say something else.
var doneMessages = map[string]string{
	"onboarded":  "Your wallet is ready.",
	"logged-out": "You are logged out.",
	"tapped":     "Coin from the faucet is in your wallet.",

	"viewing-as":      "You are viewing the wallet as another party; the banner above says which.",
	"view-as-stopped": "You are back in your own wallet.",

	"sent-offer":       "Transfer offer sent; the receiver can accept it.",
	"sent-direct":      "Sent.",
	"sent-instruction": "Transfer instruction sent; the coin is locked until the receiver accepts it or it expires.",

	"offers-accept":         "Offer accepted; the coin is in your wallet.",
	"offers-reject":         "Offer rejected.",
	"offers-withdraw":       "Offer withdrawn.",
	"instructions-accept":   "Transfer instruction accepted; the coin is in your wallet.",
	"instructions-reject":   "Transfer instruction rejected; the coin goes back to the sender.",
	"instructions-withdraw": "Transfer instruction withdrawn; the coin is yours again.",

	"allocations-allocate": "Allocated: your coin is locked for the trade until its settlement deadline; the venue settles it, or the coin comes back to you.",
	"allocations-reject":   "Allocation request rejected; the trade is off.",
	"allocations-withdraw": "Allocation withdrawn; the coin is yours again.",

	"preapproved":          "Direct transfers pre-approved: others can now send you coin in one step.",
	"already-preapproved":  "Direct transfers were already pre-approved; nothing changed.",
	"preapproval-revoked":  "Preapproval revoked: others must send you transfer offers again.",
	"merge-proposed":       "Merge delegation proposed; the validator accepts it on its next run.",
	"merge-withdrawn":      "Merge delegation withdrawn: the validator no longer merges your holdings.",
	"featured-grant":       "Your party is now a featured app provider.",
	"featured-cancel":      "Your party is no longer a featured app provider.",
	"traffic-bought":       "Traffic bought.",
	"payments-accept":      "Payment accepted: the coin is locked until the app collects it, or comes back to you if it does not in time.",
	"payments-reject":      "Payment request rejected; nothing was paid.",
	"name-requested":       "Name requested: accept its subscription below to pay for it; the name is yours once the first payment is collected.",
	"delegations-accept":   "Proposal accepted: the validator now mints this party's rewards and merges its holdings.",
	"delegations-reject":   "Proposal rejected.",
	"delegations-withdraw": "Delegation withdrawn: the validator no longer acts for this party.",

	"subscription-accept": "Subscription accepted: the first payment is locked for the app, which collects it shortly; your wallet pays the next ones when they are due.",
	"subscription-reject": "Subscription request rejected; nothing was paid.",
	"subscription-cancel": "Subscription cancelled: no more payments are made.",

	"user-onboarded":         "User onboarded: they can log in and use their wallet.",
	"user-already-onboarded": "That user was already onboarded; nothing changed.",
	"user-offboarded":        "User offboarded: their wallet is closed; their party and coin stay, and onboarding them again restores access.",
}

// doneMessage is the words of code, "" for an unknown one.
func doneMessage(code string) string { return doneMessages[code] }

// done answers a successful action: 303 to to with ?done=code (HX-Redirect
// for htmx), whose page then shows the code's words.
func done(w http.ResponseWriter, r *http.Request, to, code string) {
	sep := "?"
	if strings.Contains(to, "?") {
		sep = "&"
	}
	redirect(w, r, to+sep+"done="+code)
}

// withFlash renders fragment for an htmx action with the code's words
// swapped into the layout's status region beside it.
func withFlash(fragment templ.Component, code string) templ.Component {
	return templ.Join(fragment, views.FlashUpdate(doneMessage(code)))
}

// flashContext is r's context carrying the words of its ?done= code, for
// the layout of the page a GET renders.
func flashContext(r *http.Request) context.Context {
	if r.Method != http.MethodGet {
		return r.Context()
	}
	return views.WithFlash(r.Context(), doneMessage(r.URL.Query().Get("done")))
}
