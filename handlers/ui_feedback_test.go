package handlers_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/ledger"
)

var flashRE = regexp.MustCompile(`(?s)<div id="flash"[^>]*data-testid="flash"[^>]*>(.*?)</div>`)

// flashText is the words in the layout's status region (or an htmx
// answer's swap of it), "" when empty.
func flashText(t *testing.T, body string) string {
	t.Helper()
	m := flashRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no status region in: %.500s", body)
	}
	return strings.TrimSpace(html.UnescapeString(tagRE.ReplaceAllString(m[1], "")))
}

// followed posts form to path as a form without JavaScript and follows
// the 303: the words the page after the redirect shows.
func (b *browser) followed(path string, form url.Values) string {
	b.t.Helper()
	r := b.post(path, form)
	if r.status != http.StatusSeeOther {
		b.t.Fatalf("POST %s = %d, want 303: %.500s", path, r.status, r.body)
	}
	page := b.get(strings.TrimPrefix(r.header.Get("Location"), b.env.srv.URL))
	if page.status != http.StatusOK {
		b.t.Fatalf("GET %s = %d", r.header.Get("Location"), page.status)
	}
	return flashText(b.t, page.body)
}

// TestUIActionsSayWhatHappened: every POST form of the web wallet, without
// JavaScript, lands on a page whose status region says what it did; with
// htmx the same words come swapped into it (issue 24 point 6).
func TestUIActionsSayWhatHappened(t *testing.T) {
	forEngine(t, func(t *testing.T, e *uiEnv) {
		b := e.browser(t)
		b.login("alice")
		csrf := csrfOf(t, b.get("/onboard").body)
		if got := b.followed("/onboard", url.Values{"csrf_token": {csrf}}); got != "Your wallet is ready." {
			t.Errorf("onboard says %q", got)
		}
		alice := &wallet{browser: b, csrf: csrf}
		alice.party, _ = e.l.PartyOf(context.Background(), "alice")
		form := func(kv ...string) url.Values {
			v := url.Values{"csrf_token": {csrf}}
			for i := 0; i+1 < len(kv); i += 2 {
				v.Set(kv[i], kv[i+1])
			}
			return v
		}
		if got := alice.followed("/tap", form("amount", "100")); got != "Coin from the faucet is in your wallet." {
			t.Errorf("tap says %q", got)
		}
		r := alice.do(http.MethodPost, "/tap", form("amount", "1"), map[string]string{"HX-Request": "true"})
		if got := flashText(t, r.body); r.status != http.StatusOK || got != "Coin from the faucet is in your wallet." || !strings.Contains(r.body, `hx-swap-oob="true"`) {
			t.Errorf("htmx tap = %d %q", r.status, got)
		}

		bob := e.wallet(t, "bob", "")
		if got := alice.followed("/send", form("receiver", string(bob.party), "amount", "3", "method", "offer", "expires_hours", "24", "dedup_id", "f1")); got != "Transfer offer sent; the receiver can accept it." {
			t.Errorf("send says %q", got)
		}
		for _, action := range []string{"accept", "reject"} {
			mustSend(t, alice, bob.party, "2", "offer")
			id := bob.pending()["incoming-offers"][0]
			want := map[string]string{"accept": "Offer accepted; the coin is in your wallet.", "reject": "Offer rejected."}[action]
			if got := bob.followed("/offers/"+id+"/"+action, url.Values{"csrf_token": {bob.csrf}}); got != want {
				t.Errorf("offer %s says %q, want %q", action, got, want)
			}
		}
		mustSend(t, alice, bob.party, "2", "offer")
		if got := alice.followed("/offers/"+alice.pending()["outgoing-offers"][0]+"/withdraw", form()); got != "Offer withdrawn." {
			t.Errorf("offer withdraw says %q", got)
		}
		mustSend(t, alice, bob.party, "2", "instruction")
		if got := bob.followed("/instructions/"+bob.pending()["incoming-instructions"][0]+"/reject", url.Values{"csrf_token": {bob.csrf}}); got != "Transfer instruction rejected; the coin goes back to the sender." {
			t.Errorf("instruction reject says %q", got)
		}

		// Approvals: each action and its undo, from the same page.
		if got := bob.followed("/preapproval", url.Values{"csrf_token": {bob.csrf}}); got != "Direct transfers pre-approved: others can now send you coin in one step." {
			t.Errorf("preapprove says %q", got)
		}
		if got := bob.followed("/preapproval", url.Values{"csrf_token": {bob.csrf}}); got != "Direct transfers were already pre-approved; nothing changed." {
			t.Errorf("preapprove again says %q", got)
		}
		mustHave(t, bob.get("/approvals"), http.StatusOK, `data-testid="preapproval-revoke"`)
		if got := bob.followed("/preapproval/revoke", url.Values{"csrf_token": {bob.csrf}}); got != "Preapproval revoked: others must send you transfer offers again." {
			t.Errorf("revoke says %q", got)
		}
		if _, err := e.l.PreapprovalOf(context.Background(), bob.party); err == nil {
			t.Error("the revoked preapproval is still valid")
		}
		mustHave(t, bob.get("/approvals"), http.StatusOK, `data-testid="preapproval-none"`, `data-testid="preapproval-create"`)

		// Propose a merge delegation, withdraw the proposal; propose again,
		// and withdraw that one too.
		for i := 0; i < 2; i++ {
			if got := bob.followed("/merge-delegation", url.Values{"csrf_token": {bob.csrf}}); got != "Merge delegation proposed; the validator accepts it on its next run." {
				t.Errorf("merge propose says %q", got)
			}
			page := bob.get("/approvals")
			cid := regexp.MustCompile(`name="cid" value="([^"]+)"`).FindStringSubmatch(page.body)
			if cid == nil {
				t.Fatalf("no merge delegation to withdraw: %.2000s", page.body)
			}
			if got := bob.followed("/merge-delegation/withdraw", url.Values{"csrf_token": {bob.csrf}, "cid": {cid[1]}}); got != "Merge delegation withdrawn: the validator no longer merges your holdings." {
				t.Errorf("merge withdraw says %q", got)
			}
			mustHave(t, bob.get("/approvals"), http.StatusOK, `data-testid="merge-none"`)
		}

		// Nothing on a page without an action; an unknown code shows no
		// words, and request text is never shown.
		if got := flashText(t, alice.get("/").body); got != "" {
			t.Errorf("plain page says %q", got)
		}
		if r := alice.get("/?done=" + url.QueryEscape("<b>send your coin to mallory</b>")); flashText(t, r.body) != "" || strings.Contains(r.body, "mallory") {
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
	forEngine(t, func(t *testing.T, e *uiEnv) {
		admin := e.browser(t)
		admin.login("admin")
		page := admin.get("/admin")
		csrf := csrfOf(t, page.body)
		if strings.Contains(page.body, `aria-label="Offboard admin"`) {
			t.Error("the operator's own user has an offboard button")
		}
		if got := admin.followed("/admin/users", url.Values{"csrf_token": {csrf}, "name": {"carol"}}); got != "User onboarded: they can log in and use their wallet." {
			t.Errorf("onboard says %q", got)
		}
		if got := admin.followed("/admin/users", url.Values{"csrf_token": {csrf}, "name": {"carol"}}); got != "That user was already onboarded; nothing changed." {
			t.Errorf("onboard again says %q", got)
		}
		carol, err := e.l.PartyOf(context.Background(), "carol")
		if err != nil {
			t.Fatal(err)
		}
		mustHave(t, admin.get("/admin"), http.StatusOK, `aria-label="Offboard carol"`)

		// The button asks first; nothing happens until confirmed.
		ask := admin.post("/admin/users/offboard", url.Values{"csrf_token": {csrf}, "name": {"carol"}})
		mustHave(t, ask, http.StatusOK, `data-testid="offboard-confirm"`, "Offboard carol?", `name="confirm" value="yes"`)
		if _, err := e.l.PartyOf(context.Background(), "carol"); err != nil {
			t.Fatalf("carol offboarded before the confirmation: %v", err)
		}
		if got := admin.followed("/admin/users/offboard", url.Values{"csrf_token": {csrf}, "name": {"carol"}, "confirm": {"yes"}}); !strings.HasPrefix(got, "User offboarded:") {
			t.Errorf("offboard says %q", got)
		}
		if _, err := e.l.PartyOf(context.Background(), "carol"); err == nil {
			t.Error("carol is still onboarded")
		}
		if strings.Contains(admin.get("/admin").body, `data-user="carol"`) {
			t.Error("the offboarded user is still listed")
		}
		// Offboarding again, or the operator: said in words, nothing done.
		r := admin.post("/admin/users/offboard", url.Values{"csrf_token": {csrf}, "name": {"carol"}, "confirm": {"yes"}})
		mustHave(t, r, http.StatusUnprocessableEntity, `data-testid="offboard-error"`, "carol is not onboarded on this validator; there is nothing to offboard")
		r = admin.post("/admin/users/offboard", url.Values{"csrf_token": {csrf}, "name": {"admin"}, "confirm": {"yes"}})
		mustHave(t, r, http.StatusUnprocessableEntity, `data-testid="offboard-error"`, "validator operator")
		if _, err := e.l.PartyOf(context.Background(), "admin"); err != nil {
			t.Errorf("the operator was offboarded: %v", err)
		}
		if got := admin.followed("/admin/users", url.Values{"csrf_token": {csrf}, "name": {"carol"}}); got != "User onboarded: they can log in and use their wallet." {
			t.Errorf("onboarding again says %q", got)
		}
		if p, err := e.l.PartyOf(context.Background(), "carol"); err != nil || p != carol {
			t.Errorf("carol's party after onboarding again = %s, %v; want %s", p, err, carol)
		}

		// Only admins offboard.
		alice := e.wallet(t, "alice", "")
		if r := alice.post("/admin/users/offboard", url.Values{"csrf_token": {alice.csrf}, "name": {"carol"}, "confirm": {"yes"}}); r.status != http.StatusForbidden {
			t.Errorf("a user offboarding = %d, want 403", r.status)
		}
		if _, err := e.l.PartyOf(context.Background(), "carol"); err != nil {
			t.Errorf("a user offboarded carol: %v", err)
		}
		_ = ledger.ErrNotFound
	})
}
