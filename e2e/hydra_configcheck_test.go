package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/internal/testnet"
)

// TestHydraConfigCheck: `ccwallet config check` fetches Hydra's discovery
// document and JWKS and approves a configuration that fits; it says in
// words what does not fit (an issuer without its trailing slash, a
// redirect URL on another origin), notes a user claim Hydra does not list
// (its ID tokens may carry it all the same), and
// that the provider cannot be reached when it cannot; --offline skips the
// fetching.
func TestHydraConfigCheck(t *testing.T) {
	t.Parallel()
	h := startHydra(t)
	check := func(issuer, extra string, flags ...string) (string, error) {
		values := fmt.Sprintf(`publicUrl: http://127.0.0.1:8080
oidc:
  issuer: %q
  clientId: ccwallet-web
  clientSecret: hydra-e2e-web-secret
%sauth:
  issuer: %q
  audience: %q
  jwksUrl: %q
`, issuer, extra, issuer, walletAudience, strings.TrimSuffix(issuer, "/")+"/.well-known/jwks.json")
		f := filepath.Join(t.TempDir(), "values.yaml")
		must(t, os.WriteFile(f, []byte(values), 0o600))
		cmd := exec.Command(walletBin, append([]string{"config", "check", "--config", f}, flags...)...)
		cmd.Env = append(os.Environ(), "WALLET_NETWORK=devnet")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := check(h.issuer, ""); err != nil || !strings.Contains(out, "identity provider OK") {
		t.Fatalf("config check of a fitting configuration: %v\n%s", err, out)
	}
	down := "http://" + testnet.RefusingAddr(t) + "/"
	cases := []struct {
		name, issuer, extra string
		want                []string
	}{
		{"issuer without its slash", strings.TrimSuffix(h.issuer, "/"), "",
			[]string{"oidc.issuer: is " + fmt.Sprintf("%q", strings.TrimSuffix(h.issuer, "/")), "the provider calls itself " + fmt.Sprintf("%q", h.issuer)}},
		{"redirect on another origin", h.issuer, "  redirectUrl: https://elsewhere.example/auth/callback\n",
			[]string{"oidc.redirectUrl:", "not on the wallet's public URL"}},
		{"provider down", down, "", []string{"cannot reach the identity provider", "--offline"}},
	}
	for _, c := range cases {
		out, err := check(c.issuer, c.extra)
		if err == nil {
			t.Errorf("%s: config check passed:\n%s", c.name, out)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: config check does not say %q:\n%s", c.name, w, out)
			}
		}
	}
	// Hydra lists only sub in claims_supported, yet its ID tokens carry
	// what the consent app adds (email here): a claim it does not list
	// is a note, not a refusal; real ID tokens decide at login
	// (TestHydraUserClaimMissingFromTokens).
	for _, claim := range []string{"email", "employee_number"} {
		out, err := check(h.issuer, "  userClaim: "+claim+"\n")
		if err != nil || !strings.Contains(out, "identity provider OK") ||
			!strings.Contains(out, fmt.Sprintf(`note: oidc.userClaim: %q is not among the claims oidc.issuer's provider lists (claims_supported: sub)`, claim)) {
			t.Errorf("config check with userClaim %s: %v, want OK with a note:\n%s", claim, err, out)
		}
	}
	if out, err := check(down, "", "--offline"); err != nil || !strings.Contains(out, "--offline") {
		t.Errorf("config check --offline with the provider down: %v\n%s", err, out)
	}
}
