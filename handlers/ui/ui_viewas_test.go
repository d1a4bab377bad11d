package ui_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestViewAsInTheWebWallet: an admin views the wallet as alice from the
// admin page; every page says so, her balance shows, a change made is
// marked as the admin's; stopping returns to the admin's own wallet. A
// user cannot ask.
func TestViewAsInTheWebWallet(t *testing.T) {
	e := handlerstest.NewUIEnv(t, ledgertest.Engines[0])
	alice := e.Wallet(t, "alice", "10")
	adminB := e.Browser(t)
	adminB.Login("admin") // the validator operator, onboarded from the start
	page := adminB.Get("/admin")
	handlerstest.MustHave(t, page, http.StatusOK, `data-testid="view-as-form"`)
	csrf := handlerstest.CSRFOf(t, page.Body)
	party := alice.Party

	bad := adminB.Post("/admin/view-as", url.Values{"csrf_token": {csrf}, "party": {"nobody"}})
	handlerstest.MustHave(t, bad, http.StatusUnprocessableEntity, `data-testid="view-as-error"`)
	r := adminB.Post("/admin/view-as", url.Values{"csrf_token": {csrf}, "party": {string(party)}})
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/?done=viewing-as" {
		t.Fatalf("view as = %d %q %s", r.Status, r.Header.Get("Location"), r.Body)
	}
	home := adminB.Get("/")
	handlerstest.MustHave(t, home, http.StatusOK, `data-testid="view-as-banner"`, string(party), "2,000")
	before := handlerstest.NewestOffset(t, e.L)
	handlerstest.MustHave(t, adminB.Post("/tap", url.Values{"csrf_token": {csrf}, "amount": {"1"}}), http.StatusSeeOther)
	evs, err := apiread.New(e.L).UpdatesAfter(context.Background(), before, 10)
	if err != nil || len(evs) != 1 || evs[0].ActedBy != "admin" || !slices.Contains(evs[0].Parties, party) {
		t.Fatalf("the tap's update = %+v, %v; want alice's, acted by admin", evs, err)
	}
	r = adminB.Post("/view-as/stop", url.Values{"csrf_token": {csrf}})
	if r.Status != http.StatusSeeOther {
		t.Fatalf("stop = %d", r.Status)
	}
	if home := adminB.Get("/"); strings.Contains(home.Body, `data-testid="view-as-banner"`) {
		t.Error("the banner stays after stopping")
	}
	// A user has no such form and cannot post it.
	aliceCSRF := alice.Csrf
	if r := alice.Post("/admin/view-as", url.Values{"csrf_token": {aliceCSRF}, "party": {string(party)}}); r.Status != http.StatusForbidden {
		t.Errorf("a user asking to view as = %d, want 403", r.Status)
	}
}
