package ui_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/store"
)

// TestUIFirstCoinGoesLive: a new wallet's Home reloads its live part with
// ?first=1 (a hidden input in the part, which the part includes); while
// the wallet is empty the answer leaves the first-coin card alone, and
// once the first tap has landed it deletes the card and fills in the
// faucet further down (out of band), as a reload would; the balance it
// brings has no input, so the part asks plainly from then on (issue 37
// point 7).
func TestUIFirstCoinGoesLive(t *testing.T) {
	e := handlerstest.NewUIEnv(t, store.SQLite)
	b := e.Browser(t)
	csrf := b.Onboarded("alice")
	const firstInput = `<input type="hidden" name="first" value="1">`
	handlerstest.MustHave(t, b.Get("/"), http.StatusOK, `id="first-coin"`, `hx-get="/home/live" hx-include="this"`, firstInput, `<div id="home-tap-slot"></div>`)
	before := b.Get("/home/live?first=1")
	handlerstest.MustHave(t, before, http.StatusOK, firstInput)
	if strings.Contains(before.Body, "first-coin") || strings.Contains(before.Body, "home-tap-slot") {
		t.Errorf("an empty wallet's live update touches the first-coin card:\n%s", before.Body)
	}

	if r := b.Post("/tap", url.Values{"csrf_token": {csrf}, "amount": {"100"}}); r.Status != http.StatusSeeOther {
		t.Fatalf("POST /tap = %d", r.Status)
	}
	after := b.Get("/home/live?first=1")
	handlerstest.MustHave(t, after, http.StatusOK, `hx-get="/home/live" hx-include="this"`, `<section id="first-coin" hx-swap-oob="delete"></section>`,
		`<div id="home-tap-slot" hx-swap-oob="true"><section class="home-faucet"`, `data-testid="tap-form"`, `name="csrf_token" value="`+csrf+`"`)
	if strings.Contains(after.Body, firstInput) {
		t.Errorf("the answer that takes the card away asks with ?first=1 again:\n%s", after.Body)
	}
	// Without ?first=1 (a page that had no card) nothing but the usual.
	if plain := b.Get("/home/live"); strings.Contains(plain.Body, "first-coin") || strings.Contains(plain.Body, "home-tap-slot") {
		t.Errorf("a plain live update has the first-coin swap:\n%s", plain.Body)
	}
}
