package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHydraUserClaimMissingFromTokens: oidc.userClaim is judged on Hydra's
// real ID tokens, not on its claims_supported (which lists only sub). A
// wallet naming users by a claim Hydra's ID tokens lack refuses the login
// with a page naming the claim and a way back, and its log names the
// claims the token does carry (email, which the consent app adds), so the
// operator sees what to configure. Before, the page said only "does not
// say who you are", and the log named no claim the token carried.
func TestHydraUserClaimMissingFromTokens(t *testing.T) {
	t.Parallel()
	h := startHydra(t)
	w := startHydraClaimWallet(t, h, "employee_number")
	p := newPage(t, true)
	hydraFillLogin(t, p, w, "nora")
	must(t, p.Locator("#idp-submit").Click())
	waitURL(t, p, regexp.MustCompile(regexp.QuoteMeta(w.url)+`/auth/callback`))
	onPage(t, p, expect.Locator(testID(p, "login-error")).ToContainText(`does not carry "employee_number", the claim this wallet names its users by`))
	onPage(t, p, expect.Locator(testID(p, "login-link")).ToBeVisible())
	log, err := os.ReadFile(filepath.Join(w.dir, "crash.log"))
	must(t, err)
	var line string
	for l := range strings.Lines(string(log)) {
		if strings.Contains(l, "login refused") && strings.Contains(l, `no \"employee_number\" claim`) {
			line = l
		}
	}
	if line == "" || !regexp.MustCompile(`it carries [a-z_, ]*\bemail\b`).MatchString(line) || strings.Contains(line, hydraEmail("nora")) {
		t.Errorf("the wallet's log does not name the claims Hydra's ID token carries (names only, no values): %q", line)
	}
}

// startHydraClaimWallet starts a wallet on SQLite logging in through h
// that names users by claim (oidc.userClaim).
func startHydraClaimWallet(t *testing.T, h *hydra, claim string) hydraWallet {
	t.Helper()
	dir := t.TempDir()
	return startHydraWalletValues(t, h, filepath.Join(dir, "wallet.db"), dir, fmt.Sprintf(`rateLimit: {burst: 0}
oidc:
  issuer: %q
  clientId: ccwallet-web
  clientSecret: hydra-e2e-web-secret
  scopes: [openid, profile, offline_access]
  userClaim: %s
auth:
  issuer: %q
  audience: %q
  jwksUrl: %q
`, h.issuer, claim, h.issuer, walletAudience, h.public+"/.well-known/jwks.json"))
}
