package ui_test

import (
	"context"
	"crypto/ed25519"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	extparty "github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// proposeMinting submits ext's signed minting delegation proposal naming
// the operator.
func proposeMinting(t *testing.T, e *handlerstest.UIEnv, ext coin.PartyID, key ed25519.PrivateKey, limit int) coin.ContractID {
	t.Helper()
	ctx := context.Background()
	p, err := delegations.New(e.L).PrepareMintingDelegationProposal(ctx, ext, time.Now().Add(48*time.Hour), limit)
	if err != nil {
		t.Fatal(err)
	}
	r, err := extparty.New(e.L, delegations.PreparedKinds(e.L)...).Submit(ctx, ledgertest.Sign(t, ext, key, p))
	if err != nil {
		t.Fatal(err)
	}
	return r.ContractID
}

// TestUIMintingDelegations drives the delegations page as a browser
// without JavaScript would: plain form posts, 303 back to the page with a
// message saying what happened, errors inline with 422.
func TestUIMintingDelegations(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		ctx := context.Background()
		admin := e.Browser(t)
		admin.Login("admin") // the operator's user, onboarded at bootstrap
		adminCSRF := handlerstest.CSRFOf(t, admin.Get("/delegations").Body)
		erin, erinKey := ledgertest.ExternalParty(t, e.L, "ext-erin")
		fred, fredKey := ledgertest.ExternalParty(t, e.L, "ext-fred")
		pErin := proposeMinting(t, e, erin, erinKey, 5)
		pFred := proposeMinting(t, e, fred, fredKey, 20)

		handlerstest.MustHave(t, admin.Get("/"), http.StatusOK, `data-testid="nav-delegations"`)
		page := admin.Get("/delegations")
		handlerstest.MustHave(t, page, http.StatusOK, `data-testid="minting-proposal-row" data-cid="`+string(pErin), `data-cid="`+string(pFred),
			`data-testid="minting-active-empty"`, `action="/delegations/`+string(pErin)+`/accept"`, `name="csrf_token"`)

		post := func(cid coin.ContractID, action string) handlerstest.Resp {
			return admin.Post("/delegations/"+string(cid)+"/"+action, url.Values{"csrf_token": {adminCSRF}})
		}
		r := post(pErin, "accept")
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/delegations?done=delegations-accept" {
			t.Fatalf("accept = %d to %q: %.300s", r.Status, r.Header.Get("Location"), r.Body)
		}
		handlerstest.MustHave(t, admin.Get("/delegations?done=delegations-accept"), http.StatusOK, `data-testid="flash"><p>Proposal accepted`,
			`data-testid="minting-active-row"`, `data-beneficiary="`+string(erin), `data-testid="merge-limit">5<`)
		if r := post(pFred, "reject"); r.Status != http.StatusSeeOther {
			t.Fatalf("reject = %d: %.300s", r.Status, r.Body)
		}
		handlerstest.MustHave(t, admin.Get("/delegations?done=delegations-reject"), http.StatusOK, "Proposal rejected.", `data-testid="minting-proposals-empty"`)

		// A second proposal of erin's shows what accepting it replaces.
		pErin2 := proposeMinting(t, e, erin, erinKey, 7)
		handlerstest.MustHave(t, admin.Get("/delegations"), http.StatusOK, `data-testid="minting-replaces"`, "merge limit 5", "Accept and replace")
		if r := post(pErin2, "reject"); r.Status != http.StatusSeeOther {
			t.Fatalf("reject = %d", r.Status)
		}

		// What the delegate did: the merge down to erin's limit of 5.
		as := make([]coin.Amount, 8)
		for i := range as {
			as[i] = coin.MustParse("1")
		}
		if err := ledgertest.Dev(t, e.L).MintBulk(ctx, erin, as); err != nil {
			t.Fatal(err)
		}
		if _, err := delegations.New(e.L).MergeHoldings(ctx); err != nil {
			t.Fatal(err)
		}
		// And the rewards it minted for erin once their round closed.
		if err := ledgertest.Dev(t, e.L).SeedRewardCoupons(ctx, ledger.RewardValidator, []coin.PartyID{erin}, coin.MustParse("0.5")); err != nil {
			t.Fatal(err)
		}
		if _, err := devnet.New(e.L).AdvanceRounds(ctx, 3); err != nil {
			t.Fatal(err)
		}
		page = admin.Get("/delegations")
		handlerstest.MustHave(t, page, http.StatusOK, `data-testid="minting-activity-row"`, "merged 4 holdings", "(now 6)", "minted 1 reward coupons")

		// Stale buttons and bad input are explained on the page.
		handlerstest.MustHave(t, post(pErin, "accept"), http.StatusUnprocessableEntity, `data-testid="minting-error"`,
			"This minting delegation proposal is no longer active (it was accepted, rejected or withdrawn meanwhile); reload the page.")
		handlerstest.MustHave(t, admin.Post("/delegations/not-a-cid/reject", url.Values{"csrf_token": {adminCSRF}}), http.StatusUnprocessableEntity, `data-testid="minting-error"`,
			"There is no such proposal or delegation; reload the page.")
		if r := admin.Post("/delegations/"+string(pErin)+"/accept", url.Values{}); r.Status != http.StatusForbidden {
			t.Errorf("post without CSRF token = %d, want 403", r.Status)
		}
		if r := post(pErin, "frobnicate"); r.Status != http.StatusNotFound {
			t.Errorf("unknown action = %d, want 404", r.Status)
		}

		d := strings.Split(strings.Split(page.Body, `data-testid="minting-active-row" data-cid="`)[1], `"`)[0]
		if r := post(coin.ContractID(d), "withdraw"); r.Status != http.StatusSeeOther {
			t.Fatalf("withdraw = %d: %.300s", r.Status, r.Body)
		}
		handlerstest.MustHave(t, admin.Get("/delegations?done=delegations-withdraw"), http.StatusOK, "Delegation withdrawn", `data-testid="minting-active-empty"`)

		// A user who is not an admin has no menu entry, and the page and
		// its actions are refused (the ledger's OperatorOnly; issue 37).
		alice := e.Wallet(t, "alice", "")
		if strings.Contains(alice.Get("/").Body, `data-testid="nav-delegations"`) {
			t.Error("alice has the delegations menu entry")
		}
		if r := alice.Get("/delegations"); r.Status != http.StatusForbidden || strings.Contains(r.Body, "minting-proposals") {
			t.Errorf("alice opens /delegations: %d", r.Status)
		}
		if r := alice.Post("/delegations/"+string(pErin)+"/reject", url.Values{"csrf_token": {alice.Csrf}}); r.Status != http.StatusForbidden {
			t.Errorf("alice answers a proposal on /delegations: %d", r.Status)
		}
	})
}
