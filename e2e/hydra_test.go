package e2e

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// hydraEngines runs f once on SQLite and once on a database of its own
// on the package's Postgres.
func hydraEngines(t *testing.T, f func(t *testing.T, db string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, filepath.Join(t.TempDir(), "wallet.db")) })
	t.Run("postgres", func(t *testing.T) { f(t, pgDB(t)) })
}

// hydraLogin logs user in at the wallet through Hydra and the tests'
// login app (password form), onboarding a new user; it ends on home.
func hydraLogin(t *testing.T, p playwright.Page, w hydraWallet, user string) {
	t.Helper()
	hydraFillLogin(t, p, w, user)
	must(t, p.Locator("#idp-submit").Click())
	hydraHome(t, p, w)
}

// hydraFillLogin starts a login at the wallet and fills in Hydra's login
// app's form for user, without sending it.
func hydraFillLogin(t *testing.T, p playwright.Page, w hydraWallet, user string) {
	t.Helper()
	_, err := p.Goto(w.url + "/login")
	must(t, err)
	if err := p.Locator("#idp-username").Fill(user); err != nil {
		log, _ := os.ReadFile(filepath.Join(w.dir, "crash.log"))
		onPage(t, p, fmt.Errorf("%w\nwallet log:\n%s", err, log))
	}
	must(t, p.Locator("#idp-password").Fill(hydraPassword(user)))
}

// hydraHome waits for the wallet's home (onboarding first when new).
func hydraHome(t *testing.T, p playwright.Page, w hydraWallet) {
	t.Helper()
	if err := waitURLErr(p, regexp.MustCompile(`^`+regexp.QuoteMeta(w.url)+`/(onboard)?$`), 30*time.Second); err != nil {
		c, _ := p.Content()
		t.Fatalf("not home but %s: %v\n%s", p.URL(), err, c)
	}
	if strings.HasSuffix(p.URL(), "/onboard") {
		must(t, testID(p, "onboard-submit").Click())
		waitURL(t, p, regexp.MustCompile(`^`+regexp.QuoteMeta(w.url)+`/(\?done=onboarded)?$`))
	}
	must(t, expect.Locator(testID(p, "party-id")).ToContainText("::"))
}

// TestHydraBrowserLoginSendLogout: a user logs in at Hydra (an OpenID
// Provider ccwallet did not write), onboards, taps and sends; a second
// login while Hydra's session lives asks no password; logout ends the
// session at the wallet and at Hydra (RP-initiated), so the next login
// asks for the password again. (Refused logins: hydra_login_refusals_test.go.)
func TestHydraBrowserLoginSendLogout(t *testing.T) {
	t.Parallel()
	h := startHydra(t)
	hydraEngines(t, func(t *testing.T, db string) {
		w := startHydraWallet(t, h, db, t.TempDir(), "", "")
		ida := newPage(t, true)
		hydraLogin(t, ida, w, "ida")
		idaParty, err := testID(ida, "party-id").GetAttribute("title")
		must(t, err)

		p := newPage(t, true)
		hydraLogin(t, p, w, "hugo")
		must(t, p.Locator("#tap-amount").Fill("10"))
		must(t, testID(p, "tap-submit").Click())
		mustBalance(t, testID(p, "balance-cc"), "2,000.00 CC")
		_, err = p.Goto(w.url + "/send")
		must(t, err)
		must(t, p.Locator("#send-receiver").Fill(strings.TrimSpace(idaParty)))
		must(t, expect.Locator(p.Locator(`[data-testid="method-direct"], [data-testid="no-preapproval"], [data-testid="send-check-error"]`).First()).ToBeVisible())
		must(t, testID(p, "method-offer").Check())
		must(t, p.Locator("#send-amount").Fill("5"))
		must(t, p.Locator("#send-description").Fill("via hydra"))
		must(t, testID(p, "send-submit").Click())
		waitURL(t, p, w.url+"/send?done=sent-offer")
		forms := h.forms("hugo")

		// The wallet's session ends (cookie gone), Hydra's lives: the
		// next login asks no password.
		must(t, p.Context().ClearCookies(playwright.BrowserContextClearCookiesOptions{Name: "ccwallet_session"}))
		_, err = p.Goto(w.url + "/login")
		must(t, err)
		hydraHome(t, p, w)
		if got := h.forms("hugo"); got != forms {
			t.Errorf("second login showed the password form (%d forms, want %d)", got, forms)
		}

		// Logout: the wallet's session and Hydra's end.
		logouts := h.logouts.Load()
		must(t, testID(p, "logout").Click())
		onPage(t, p, expect.Locator(testID(p, "login-link")).ToBeVisible())
		if h.logouts.Load() == logouts {
			t.Error("logout did not reach Hydra's logout (RP-initiated logout)")
		}
		_, err = p.Goto(w.url + "/login")
		must(t, err)
		must(t, expect.Locator(p.Locator("#idp-password")).ToBeVisible())
	})
}

// TestHydraClientCredentials: an API client's client-credentials token
// (audience and scope daml_ledger_api) works on the JSON API and the
// Ledger API, its user being the token's sub; a token for another
// audience is refused on both with a clear error.
func TestHydraClientCredentials(t *testing.T) {
	t.Parallel()
	h := startHydra(t)
	w := startHydraWallet(t, h, filepath.Join(t.TempDir(), "wallet.db"), t.TempDir(), "", "")
	h.machineClient(t, "ledger-bot", "ledger-bot-secret", walletAudience, "https://other.example")
	tok := h.clientToken(t, "ledger-bot", "ledger-bot-secret", walletAudience)
	code, body, err := postJSON(http.DefaultClient, w.url+"/v0/register", tok, "")
	if err != nil || code != http.StatusOK {
		t.Fatalf("register with Hydra's token: %d %s %v", code, body, err)
	}
	if code, body := apiGet(t, w.url+"/v0/wallet/balance", tok); code != http.StatusOK {
		t.Fatalf("balance: %d %s", code, body)
	}
	if code, body := apiGet(t, w.ledgerAPI+"/v2/users/ledger-bot", tok); code != http.StatusOK || !strings.Contains(body, `"ledger-bot"`) {
		t.Fatalf("Ledger API user: %d %s", code, body)
	}
	other := h.clientToken(t, "ledger-bot", "ledger-bot-secret", "https://other.example")
	for _, u := range []string{w.url + "/v0/wallet/balance", w.ledgerAPI + "/v2/users/ledger-bot"} {
		code, body := apiGet(t, u, other)
		if code != http.StatusUnauthorized || !strings.Contains(body, "audience") {
			t.Errorf("GET %s with another audience's token: %d %s, want 401 naming the audience", u, code, body)
		}
	}
}

// onPage is must, telling where the page is and what it shows.
func onPage(t *testing.T, p playwright.Page, err error) {
	t.Helper()
	if err != nil {
		c, _ := p.Content()
		t.Fatalf("%v\nat %s:\n%s", err, p.URL(), c)
	}
}

// TestHydraKeyRotation: Hydra rotates its access-token signing key while
// the wallet runs; the first token signed with the new key is accepted
// (no restart, no failed request), and the old key's tokens still are
// while Hydra publishes the old key.
func TestHydraKeyRotation(t *testing.T) {
	t.Parallel()
	h := startHydra(t)
	w := startHydraWallet(t, h, filepath.Join(t.TempDir(), "wallet.db"), t.TempDir(), "", "")
	h.machineClient(t, "rot-bot", "rot-bot-secret", walletAudience)
	old := h.clientToken(t, "rot-bot", "rot-bot-secret", walletAudience)
	if code, body, err := postJSON(http.DefaultClient, w.url+"/v0/register", old, ""); err != nil || code != http.StatusOK {
		t.Fatalf("register: %d %s %v", code, body, err)
	}
	h.call(t, "POST", "/admin/keys/hydra.jwt.access-token", map[string]any{"alg": "RS256", "use": "sig", "kid": "rotated-1"}, nil)
	fresh := h.clientToken(t, "rot-bot", "rot-bot-secret", walletAudience)
	if kidOf(t, fresh) != "rotated-1" {
		t.Fatalf("Hydra signed with %q after the rotation, not the new key", kidOf(t, fresh))
	}
	if code, body := apiGet(t, w.url+"/v0/wallet/balance", fresh); code != http.StatusOK {
		t.Fatalf("first request with the rotated key: %d %s", code, body)
	}
	if code, body := apiGet(t, w.url+"/v0/wallet/balance", old); code != http.StatusOK {
		t.Fatalf("old key's token while Hydra still publishes it: %d %s", code, body)
	}
}

// kidOf is the kid of a JWT's header.
func kidOf(t *testing.T, tok string) string {
	t.Helper()
	head, _, _ := strings.Cut(tok, ".")
	b, err := base64.RawURLEncoding.DecodeString(head)
	must(t, err)
	var h struct {
		Kid string `json:"kid"`
	}
	must(t, json.Unmarshal(b, &h))
	return h.Kid
}
