package e2e

import (
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// TestHydraLoginRefusalPages: a login the wallet refuses shows a page in
// words with a way back, never an error page: consent denied at Hydra, a
// callback replayed after it logged in, a login whose state expired (its
// cookie gone) before Hydra sent the browser back, and a wallet whose
// oidc.issuer is not what Hydra calls itself.
func TestHydraLoginRefusalPages(t *testing.T) {
	h := startHydra(t)
	w := startHydraWallet(t, h, filepath.Join(t.TempDir(), "wallet.db"), t.TempDir(), "", "")
	refusal := func(t *testing.T, p playwright.Page, status int, got playwright.Response, words string) {
		t.Helper()
		onPage(t, p, expect.Locator(testID(p, "login-error")).ToContainText(words))
		onPage(t, p, expect.Locator(testID(p, "login-link")).ToBeVisible())
		if got != nil && got.Status() != status {
			t.Errorf("status %d, want %d", got.Status(), status)
		}
	}

	t.Run("consent denied", func(t *testing.T) {
		p := newPage(t, true)
		hydraFillLogin(t, p, w, "mallory")
		must(t, p.Locator("#idp-submit").Click())
		waitURL(t, p, regexp.MustCompile(regexp.QuoteMeta(w.url)+`/auth/callback`))
		refusal(t, p, 0, nil, "You did not allow the wallet to use your account")
	})

	t.Run("replayed callback", func(t *testing.T) {
		p := newPage(t, true)
		var callback string
		p.OnRequest(func(r playwright.Request) {
			if strings.HasPrefix(r.URL(), w.url+"/auth/callback") {
				callback = r.URL()
			}
		})
		hydraLogin(t, p, w, "rory")
		if callback == "" {
			t.Fatal("no callback seen")
		}
		res, err := p.Goto(callback)
		must(t, err)
		refusal(t, p, http.StatusUnauthorized, res, "expired or was already used")
	})

	t.Run("state expired", func(t *testing.T) {
		p := newPage(t, true)
		hydraFillLogin(t, p, w, "sten")
		// The login's cookie (its state, nonce and PKCE verifier) lives
		// ten minutes; gone, the callback cannot be matched.
		must(t, p.Context().ClearCookies(playwright.BrowserContextClearCookiesOptions{Name: "ccwallet_login"}))
		must(t, p.Locator("#idp-submit").Click())
		waitURL(t, p, regexp.MustCompile(regexp.QuoteMeta(w.url)+`/auth/callback`))
		refusal(t, p, 0, nil, "expired or was already used")
	})

	t.Run("wrong issuer", func(t *testing.T) {
		// Hydra calls itself h.issuer, slash included; this wallet is told
		// the issuer without it (config check says so too).
		t.Setenv("WALLET_OIDC_ISSUER", strings.TrimSuffix(h.issuer, "/"))
		wrong := startHydraWallet(t, h, filepath.Join(t.TempDir(), "wallet.db"), t.TempDir(), "", "")
		p := newPage(t, true)
		res, err := p.Goto(wrong.url + "/login")
		must(t, err)
		onPage(t, p, expect.Locator(testID(p, "error-message")).ToContainText("not set up correctly"))
		onPage(t, p, expect.Locator(testID(p, "error-home")).ToBeVisible())
		if res.Status() != http.StatusServiceUnavailable {
			t.Errorf("status %d, want 503", res.Status())
		}
	})
}
