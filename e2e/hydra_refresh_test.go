package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// TestHydraSessionRefresh: the wallet's session keeps Hydra's refresh
// token and renews the short-lived access token as the user goes on (the
// pages keep working past its expiry); when the user's consent is revoked
// at Hydra (its admin API, which revokes the refresh token with it), the
// next page says in words that the login has ended, with the way to log in
// again, and the session is gone.
func TestHydraSessionRefresh(t *testing.T) {
	t.Parallel()
	h := startHydra(t)
	hydraEngines(t, func(t *testing.T, db string) {
		w := startHydraWallet(t, h, db, t.TempDir(), "", "")
		// Access tokens of 5 s: every request is within the renewal
		// margin, so each renews.
		h.call(t, "PUT", "/admin/clients/ccwallet-web/lifespans", map[string]any{
			"authorization_code_grant_access_token_lifespan": "5s", "refresh_token_grant_access_token_lifespan": "5s",
		}, nil)
		// Without JavaScript: a page's live-update stream would renew the
		// session at the moment the test revokes the consent, and Hydra
		// may answer that race with a 500 (its serialisation failure), which
		// the wallet rightly takes for a provider briefly down.
		p := newPage(t, false)
		user := "rhea-" + filepath.Base(t.Name()) // one per engine
		hydraLogin(t, p, w, user)
		cookies, err := p.Context().Cookies()
		must(t, err)
		for _, c := range cookies {
			if c.Name == "ccwallet_session" && (!c.HttpOnly || c.SameSite == nil || *c.SameSite != *playwright.SameSiteAttributeLax) {
				t.Errorf("session cookie %+v: want HttpOnly, SameSite=Lax", c)
			}
		}
		for range 2 {
			res, err := p.Goto(w.url + "/")
			must(t, err)
			if res.Status() != http.StatusOK {
				onPage(t, p, fmt.Errorf("home after a renewal: status %d", res.Status()))
			}
			onPage(t, p, expect.Locator(testID(p, "party-id")).ToContainText("::"))
		}

		h.call(t, "DELETE", "/admin/oauth2/auth/sessions/consent?subject="+user+"&all=true", nil, nil)
		res, err := p.Goto(w.url + "/send")
		must(t, err)
		if c, _ := testID(p, "login-error").Count(); c == 0 {
			log, _ := os.ReadFile(filepath.Join(w.dir, "crash.log"))
			hlog, _ := os.ReadFile(h.log)
			t.Logf("wallet log:\n%s\nhydra log:\n%s", log, hlog)
		}
		onPage(t, p, expect.Locator(testID(p, "login-error")).ToContainText("no longer accepts this login"))
		onPage(t, p, expect.Locator(testID(p, "login-link")).ToBeVisible())
		if res.Status() != http.StatusUnauthorized {
			t.Errorf("page after the revocation: status %d, want 401", res.Status())
		}
		// The session is gone, its cookie too.
		cookies, err = p.Context().Cookies()
		must(t, err)
		for _, c := range cookies {
			if c.Name == "ccwallet_session" {
				t.Errorf("the session cookie is still set after the login ended: %+v", c)
			}
		}
	})
}
