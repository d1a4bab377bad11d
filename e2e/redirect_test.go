package e2e

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestLoginNextStaysOnOrigin: issue 21's open redirects, judged by the real
// browser. Each next below once sent chromium to evil.example after the
// development login (or straight away when already logged in).
func TestLoginNextStaysOnOrigin(t *testing.T) {
	t.Parallel()
	p := newPage(t, true)
	onOrigin := func(step string) {
		t.Helper()
		must(t, p.WaitForLoadState())
		if u := p.URL(); !strings.HasPrefix(u, baseURL+"/") {
			t.Errorf("%s: the browser left the wallet for %s", step, u)
		}
	}
	_, err := p.Goto("/login?next=/../%5Cevil.example")
	must(t, err)
	must(t, p.Locator("#username").Fill("bob"))
	must(t, p.Locator("#password").Fill("bob-devnet"))
	must(t, testID(p, "dev-login-submit").Click())
	home := regexp.MustCompile(`^` + regexp.QuoteMeta(baseURL) + `/(onboard)?$`)
	if err := waitURLErr(p, home, 15*time.Second); err != nil {
		t.Fatalf("the login did not end on the wallet's home (browser at %s): %v", p.URL(), err)
	}
	for _, next := range []string{"/%09/evil.example", "/../%5Cevil.example", "%2F%2Fevil.example", "/%5C%5Cevil.example"} {
		_, err := p.Goto("/login?next=" + next)
		if err != nil && !strings.Contains(err.Error(), "net::ERR") {
			t.Fatal(err)
		}
		onOrigin("logged in, next=" + next)
	}
}
