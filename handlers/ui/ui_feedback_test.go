package ui_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger/provider"
	"github.com/ccwallet/ccwallet/ledger/users"
)

var flashRE = regexp.MustCompile(`(?s)<div id="flash"[^>]*data-testid="flash"[^>]*>(.*?)</div>`)

// flashText is the words in the layout's status region (or an htmx
// answer's swap of it), "" when empty.
func flashText(t *testing.T, body string) string {
	t.Helper()
	return textOf(t, flashRE, body)
}

// textOf is the text of re's first match in body, tags dropped.
func textOf(t *testing.T, re *regexp.Regexp, body string) string {
	t.Helper()
	m := re.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("nothing matches %s in: %.1500s", re, body)
	}
	return strings.TrimSpace(html.UnescapeString(tagRE.ReplaceAllString(m[1], "")))
}

// TestUIActionsSayWhatHappened: every POST form of the web wallet, without
// JavaScript, lands on a page whose status region says what it did; with
// htmx the same words come swapped into it (issue 24 point 6).
func TestUIActionsSayWhatHappened(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		b := e.Browser(t)
		b.Login("alice")
		csrf := handlerstest.CSRFOf(t, b.Get("/onboard").Body)
		if got := followed(b, "/onboard", url.Values{"csrf_token": {csrf}}); got != "Your wallet is ready." {
			t.Errorf("onboard says %q", got)
		}
		alice := &handlerstest.Wallet{Browser: b, Csrf: csrf}
		alice.Party, _ = users.Of(e.L).PartyOf(context.Background(), "alice")
		form := func(kv ...string) url.Values {
			v := url.Values{"csrf_token": {csrf}}
			for i := 0; i+1 < len(kv); i += 2 {
				v.Set(kv[i], kv[i+1])
			}
			return v
		}
		if got := followed(alice.Browser, "/tap", form("amount", "100")); got != "Coin from the faucet is in your wallet." {
			t.Errorf("tap says %q", got)
		}
		r := alice.Do(http.MethodPost, "/tap", form("amount", "1"), map[string]string{"HX-Request": "true"})
		if got := flashText(t, r.Body); r.Status != http.StatusOK || got != "Coin from the faucet is in your wallet." || !strings.Contains(r.Body, `hx-swap-oob="true"`) {
			t.Errorf("htmx tap = %d %q", r.Status, got)
		}

		bob := e.Wallet(t, "bob", "")
		if got := followed(alice.Browser, "/send", form("receiver", string(bob.Party), "amount", "3", "method", "offer", "expires_hours", "24", "dedup_id", "f1")); got != "Transfer offer sent; the receiver can accept it." {
			t.Errorf("send says %q", got)
		}
		for _, action := range []string{"accept", "reject"} {
			handlerstest.MustSend(t, alice, bob.Party, "2", "offer")
			id := bob.Pending()["incoming-offers"][0]
			want := map[string]string{"accept": "Offer accepted; the coin is in your wallet.", "reject": "Offer rejected."}[action]
			if got := followed(bob.Browser, "/offers/"+id+"/"+action, url.Values{"csrf_token": {bob.Csrf}}); got != want {
				t.Errorf("offer %s says %q, want %q", action, got, want)
			}
		}
		handlerstest.MustSend(t, alice, bob.Party, "2", "offer")
		if got := followed(alice.Browser, "/offers/"+alice.Pending()["outgoing-offers"][0]+"/withdraw", form()); got != "Offer withdrawn." {
			t.Errorf("offer withdraw says %q", got)
		}
		handlerstest.MustSend(t, alice, bob.Party, "2", "instruction")
		if got := followed(bob.Browser, "/instructions/"+bob.Pending()["incoming-instructions"][0]+"/reject", url.Values{"csrf_token": {bob.Csrf}}); got != "Transfer instruction rejected; the coin goes back to the sender." {
			t.Errorf("instruction reject says %q", got)
		}

		// Approvals: each action and its undo, from the same page.
		if got := followed(bob.Browser, "/preapproval", url.Values{"csrf_token": {bob.Csrf}}); got != "Direct transfers pre-approved: others can now send you coin in one step." {
			t.Errorf("preapprove says %q", got)
		}
		if got := followed(bob.Browser, "/preapproval", url.Values{"csrf_token": {bob.Csrf}}); got != "Direct transfers were already pre-approved; nothing changed." {
			t.Errorf("preapprove again says %q", got)
		}
		handlerstest.MustHave(t, bob.Get("/approvals"), http.StatusOK, `data-testid="preapproval-revoke"`)
		if got := followed(bob.Browser, "/preapproval/revoke", url.Values{"csrf_token": {bob.Csrf}}); got != "Preapproval revoked: others must send you transfer offers again." {
			t.Errorf("revoke says %q", got)
		}
		if _, err := provider.New(e.L).Preapproval(context.Background(), bob.Party); err == nil {
			t.Error("the revoked preapproval is still valid")
		}
		handlerstest.MustHave(t, bob.Get("/approvals"), http.StatusOK, `data-testid="preapproval-none"`, `data-testid="preapproval-create"`)

		// Propose a merge delegation, withdraw the proposal; propose again,
		// and withdraw that one too.
		for i := 0; i < 2; i++ {
			if got := followed(bob.Browser, "/merge-delegation", url.Values{"csrf_token": {bob.Csrf}}); got != "Merge delegation proposed; the validator accepts it on its next run." {
				t.Errorf("merge propose says %q", got)
			}
			page := bob.Get("/approvals")
			cid := regexp.MustCompile(`name="cid" value="([^"]+)"`).FindStringSubmatch(page.Body)
			if cid == nil {
				t.Fatalf("no merge delegation to withdraw: %.2000s", page.Body)
			}
			if got := followed(bob.Browser, "/merge-delegation/withdraw", url.Values{"csrf_token": {bob.Csrf}, "cid": {cid[1]}}); got != "Merge delegation withdrawn: the validator no longer merges your holdings." {
				t.Errorf("merge withdraw says %q", got)
			}
			handlerstest.MustHave(t, bob.Get("/approvals"), http.StatusOK, `data-testid="merge-none"`)
		}

		// Nothing on a page without an action; an unknown code shows no
		// words, and request text is never shown.
		if got := flashText(t, alice.Get("/").Body); got != "" {
			t.Errorf("plain page says %q", got)
		}
		if r := alice.Get("/?done=" + url.QueryEscape("<b>send your coin to mallory</b>")); flashText(t, r.Body) != "" || strings.Contains(r.Body, "mallory") {
			t.Error("the page reflects the done parameter")
		}
	})
}

// TestUIAdminOnboardOffboard: the admin page tells onboarding from
// onboarding again, and offboards after a confirmation; the offboarded
// user's wallet closes (pages send them to onboarding, the JSON API says
// not onboarded), their party stays, and onboarding them again restores
// the same party (issue 24 point 6).
func TestUIAdminOnboardOffboard(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		admin := e.Browser(t)
		admin.Login("admin")
		page := admin.Get("/admin")
		csrf := handlerstest.CSRFOf(t, page.Body)
		if strings.Contains(page.Body, `aria-label="Offboard admin"`) {
			t.Error("the operator's own user has an offboard button")
		}
		if got := followed(admin, "/admin/users", url.Values{"csrf_token": {csrf}, "name": {"carol"}}); got != "User onboarded: they can log in and use their wallet." {
			t.Errorf("onboard says %q", got)
		}
		if got := followed(admin, "/admin/users", url.Values{"csrf_token": {csrf}, "name": {"carol"}}); got != "That user was already onboarded; nothing changed." {
			t.Errorf("onboard again says %q", got)
		}
		carol, err := users.Of(e.L).PartyOf(context.Background(), "carol")
		if err != nil {
			t.Fatal(err)
		}
		handlerstest.MustHave(t, admin.Get("/admin"), http.StatusOK, `aria-label="Offboard carol"`)

		// The button asks first; nothing happens until confirmed.
		ask := admin.Post("/admin/users/offboard", url.Values{"csrf_token": {csrf}, "name": {"carol"}})
		handlerstest.MustHave(t, ask, http.StatusOK, `data-testid="offboard-confirm"`, "Offboard carol?", `name="confirm" value="yes"`)
		if _, err := users.Of(e.L).PartyOf(context.Background(), "carol"); err != nil {
			t.Fatalf("carol offboarded before the confirmation: %v", err)
		}
		if got := followed(admin, "/admin/users/offboard", url.Values{"csrf_token": {csrf}, "name": {"carol"}, "confirm": {"yes"}}); !strings.HasPrefix(got, "User offboarded:") {
			t.Errorf("offboard says %q", got)
		}
		if _, err := users.Of(e.L).PartyOf(context.Background(), "carol"); err == nil {
			t.Error("carol is still onboarded")
		}
		if strings.Contains(admin.Get("/admin").Body, `data-user="carol"`) {
			t.Error("the offboarded user is still listed")
		}
		// Offboarding again, or the operator: said in words, nothing done.
		r := admin.Post("/admin/users/offboard", url.Values{"csrf_token": {csrf}, "name": {"carol"}, "confirm": {"yes"}})
		handlerstest.MustHave(t, r, http.StatusUnprocessableEntity, `data-testid="offboard-error"`, "The user carol is not onboarded on this validator; there is nothing to offboard.")
		r = admin.Post("/admin/users/offboard", url.Values{"csrf_token": {csrf}, "name": {"admin"}, "confirm": {"yes"}})
		handlerstest.MustHave(t, r, http.StatusUnprocessableEntity, `data-testid="offboard-error"`, "validator operator")
		if _, err := users.Of(e.L).PartyOf(context.Background(), "admin"); err != nil {
			t.Errorf("the operator was offboarded: %v", err)
		}
		if got := followed(admin, "/admin/users", url.Values{"csrf_token": {csrf}, "name": {"carol"}}); got != "User onboarded: they can log in and use their wallet." {
			t.Errorf("onboarding again says %q", got)
		}
		if p, err := users.Of(e.L).PartyOf(context.Background(), "carol"); err != nil || p != carol {
			t.Errorf("carol's party after onboarding again = %s, %v; want %s", p, err, carol)
		}

		// Only admins offboard.
		alice := e.Wallet(t, "alice", "")
		if r := alice.Post("/admin/users/offboard", url.Values{"csrf_token": {alice.Csrf}, "name": {"carol"}, "confirm": {"yes"}}); r.Status != http.StatusForbidden {
			t.Errorf("a user offboarding = %d, want 403", r.Status)
		}
		if _, err := users.Of(e.L).PartyOf(context.Background(), "carol"); err != nil {
			t.Errorf("a user offboarded carol: %v", err)
		}
	})
}

// alertText is the words of the page's (or fragment's) first error.
func alertText(t *testing.T, body string) string {
	t.Helper()
	return textOf(t, alertRE, body)
}

var alertRE = regexp.MustCompile(`(?s)class="error" role="alert"[^>]*>(.*?)</p>`)

// TestUIErrorsInPeoplesWords: every form error says what is wrong and
// what to do, with amounts as people write them, not the JSON API's field
// prefixes or the ledger's wrapped chain (issue 24 point 8).
func TestUIErrorsInPeoplesWords(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		alice := e.Wallet(t, "alice", "100") // 20,000 CC
		bob := e.Wallet(t, "bob", "")        // nothing
		op := string(e.L.Operator())
		handlerstest.MustSend(t, alice, bob.Party, "2", "offer")
		done := bob.Pending()["incoming-offers"][0]
		if r := bob.Post("/offers/"+done+"/accept", url.Values{"csrf_token": {bob.Csrf}}); r.Status != http.StatusSeeOther {
			t.Fatalf("accept = %d", r.Status)
		}
		ghost := "ghost::1220" + strings.Repeat("ab", 32)
		tests := []struct {
			name string
			who  *handlerstest.Wallet
			path string
			form []string
			want string // the whole message, or with a leading "~" a part of it
		}{
			{"tap not a number", alice, "/tap", []string{"amount", "abc"},
				`"abc" is not a number: enter digits with at most one decimal point, such as 1250.5 (no thousands separators).`},
			{"tap decimals", alice, "/tap", []string{"amount", "1.123456789012"}, `"1.123456789012" has 12 decimal places: use at most 10.`},
			{"tap separators", alice, "/tap", []string{"amount", "1,000"}, "~(no thousands separators)"},
			{"tap zero", alice, "/tap", []string{"amount", "0"}, "Enter an amount greater than 0."},
			{"tap empty", alice, "/tap", []string{"amount", ""}, "Enter an amount in USD."},
			{"send decimals", alice, "/send", []string{"receiver", string(bob.Party), "amount", "1.123456789012", "method", "offer", "expires_hours", "24"},
				`"1.123456789012" has 12 decimal places: use at most 10.`},
			{"send zero", alice, "/send", []string{"receiver", string(bob.Party), "amount", "0", "method", "offer", "expires_hours", "24"}, "Enter an amount greater than 0."},
			{"send name for a party", alice, "/send", []string{"receiver", "bob", "amount", "1", "method", "offer", "expires_hours", "24"},
				"No party has the name bob: enter a name such as alice.unverified.cns or a whole party ID (name::1220 followed by 64 hex digits)."},
			{"send to an unknown name", alice, "/send", []string{"receiver", "nobody.unverified.cns", "amount", "1", "method", "offer", "expires_hours", "24"},
				"No party has the name nobody.unverified.cns."},
			{"send cut party", alice, "/send", []string{"receiver", "bob::1220ab", "amount", "1", "method", "offer", "expires_hours", "24"}, "~copy the whole ID."},
			{"send unknown party", alice, "/send", []string{"receiver", ghost, "amount", "1", "method", "offer", "expires_hours", "24"},
				"No party " + ghost + " is known on this network; check the ID with the receiver."},
			{"offer beyond the balance", bob, "/send", []string{"receiver", string(alice.Party), "amount", "5", "method", "offer", "expires_hours", "24"},
				"Insufficient funds: the offer of 5 CC is more than your available 2 CC; offer less, or wait for incoming coin."},
			{"instruction beyond the balance", bob, "/send", []string{"receiver", string(alice.Party), "amount", "1500.5", "method", "instruction", "expires_hours", "24"},
				// The lock adds its fee reserve (ledger.TransferLockReserve) to the 1,500.5.
				"~ CC including fees, and 2 CC is available; use a smaller amount, or wait for incoming coin."},
			{"traffic below the minimum", alice, "/traffic", []string{"member", op, "amount", "299", "unit", "bytes", "step", "quote"},
				"The minimum traffic purchase is 200,000 bytes (about 667 CC)."},
			{"traffic separators", alice, "/traffic", []string{"member", op, "amount", "200,000", "unit", "bytes", "step", "quote"},
				"Enter a whole number of bytes, such as 200000 (no thousands separators), or choose CC as the unit."},
			{"traffic CC decimals", alice, "/traffic", []string{"member", op, "amount", "1.123456789012", "unit", "cc", "step", "quote"}, "~use at most 10."},
			{"traffic CC zero", alice, "/traffic", []string{"member", op, "amount", "0", "unit", "cc", "step", "quote"}, "Enter an amount of CC greater than 0."},
			{"traffic beyond the balance", bob, "/traffic", []string{"member", op, "amount", "200000", "unit", "bytes", "step", "confirm", "tracking_id", "t-poor"},
				"~Insufficient funds: this needs 666.8 CC including fees, and 2 CC is available"},
			{"accept a finished offer", bob, "/offers/" + done + "/accept", nil,
				"This transfer offer is completed already, so there is nothing left to do; reload the list."},
			{"a broken action link", bob, "/offers/zzz/accept", nil, "There is no such offer or instruction; reload the list."},
			{"revoke without a preapproval", bob, "/preapproval/revoke", nil, "There is no preapproval to revoke: it expired or was revoked already."},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				form := url.Values{"csrf_token": {tc.who.Csrf}}
				for i := 0; i+1 < len(tc.form); i += 2 {
					form.Set(tc.form[i], tc.form[i+1])
				}
				r := tc.who.Post(tc.path, form)
				if r.Status != http.StatusUnprocessableEntity {
					t.Fatalf("status %d, want 422: %.500s", r.Status, r.Body)
				}
				got := alertText(t, r.Body)
				if part, ok := strings.CutPrefix(tc.want, "~"); ok && !strings.Contains(got, part) || !ok && got != tc.want {
					t.Errorf("says %q\nwant %q", got, tc.want)
				}
			})
		}

		// The merge delegation's undo, twice: the second says it is over.
		if r := bob.Post("/merge-delegation", url.Values{"csrf_token": {bob.Csrf}}); r.Status != http.StatusSeeOther {
			t.Fatalf("propose = %d", r.Status)
		}
		cid := regexp.MustCompile(`name="cid" value="([^"]+)"`).FindStringSubmatch(bob.Get("/approvals").Body)[1]
		withdraw := url.Values{"csrf_token": {bob.Csrf}, "cid": {cid}}
		if r := bob.Post("/merge-delegation/withdraw", withdraw); r.Status != http.StatusSeeOther {
			t.Fatalf("withdraw = %d", r.Status)
		}
		r := bob.Post("/merge-delegation/withdraw", withdraw)
		if got := alertText(t, r.Body); r.Status != http.StatusUnprocessableEntity || got != "This merge delegation is withdrawn already; reload the page." {
			t.Errorf("withdrawing again = %d %q", r.Status, got)
		}

		admin := e.Browser(t)
		admin.Login("admin")
		csrf := handlerstest.CSRFOf(t, admin.Get("/admin").Body)
		for _, tc := range []struct{ path, name, want string }{
			{"/admin/users", "", "Enter the user's ID."},
			{"/admin/users", strings.Repeat("x", 256), "A user ID has at most 255 characters."},
			{"/admin/users/offboard", "nobody", "There is no user nobody on this validator; check the user ID."},
		} {
			r := admin.Post(tc.path, url.Values{"csrf_token": {csrf}, "name": {tc.name}, "confirm": {"yes"}})
			if got := alertText(t, r.Body); r.Status != http.StatusUnprocessableEntity || got != tc.want {
				t.Errorf("POST %s %.20q = %d %q, want %q", tc.path, tc.name, r.Status, got, tc.want)
			}
		}

		// htmx gets the same words in its fragment.
		api := alice.Do(http.MethodPost, "/tap", url.Values{"csrf_token": {alice.Csrf}, "amount": {"1.123456789012"}}, map[string]string{"HX-Request": "true"})
		if got := alertText(t, api.Body); !strings.Contains(got, "use at most 10") {
			t.Errorf("htmx tap error = %q", got)
		}
	})
}

// followed posts form to path as a form without JavaScript and follows
// the 303: the words the page after the redirect shows.
func followed(b *handlerstest.Browser, path string, form url.Values) string {
	b.T.Helper()
	r := b.Post(path, form)
	if r.Status != http.StatusSeeOther {
		b.T.Fatalf("POST %s = %d, want 303: %.500s", path, r.Status, r.Body)
	}
	page := b.Get(strings.TrimPrefix(r.Header.Get("Location"), b.Env.Srv.URL))
	if page.Status != http.StatusOK {
		b.T.Fatalf("GET %s = %d", r.Header.Get("Location"), page.Status)
	}
	return flashText(b.T, page.Body)
}
