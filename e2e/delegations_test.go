package e2e

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// externalClient runs "ccwallet external <args>" against the e2e wallet
// and returns its output's last line.
func externalClient(t *testing.T, token string, args ...string) string {
	t.Helper()
	cmd := exec.Command(walletBin, append([]string{"external"}, args...)...)
	cmd.Env = append(cmd.Environ(), "CCWALLET_TOKEN="+token)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("ccwallet external %s: %v\n%s", args[0], err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// newExternalParty creates an external party with the external client and
// has it propose a minting delegation with merge limit limit.
func newExternalParty(t *testing.T, token, hint, limit string) (party, key string) {
	t.Helper()
	key = filepath.Join(t.TempDir(), hint+".key")
	externalClient(t, token, "keygen", "--out", key)
	party = externalClient(t, token, "onboard", "--server", baseURL, "--hint", hint, "--key", key)
	externalClient(t, token, "propose-delegation", "--server", baseURL, "--key", key, "--party", party, "--merge-limit", limit)
	return party, key
}

// TestMintingDelegationsWithoutJavaScript: two external parties propose
// minting delegations through the external client; the operator's admin,
// in a browser without JavaScript, accepts one and rejects the other on
// the delegations page, sees the merge automation bring the accepted
// party down to its merge limit as the delegate's activity, and withdraws
// the delegation. Each step is a plain form post answered by a redirect
// to the page with a message saying what happened.
func TestMintingDelegationsWithoutJavaScript(t *testing.T) {
	t.Parallel()
	token := devToken(t, walletBin, "admin")
	suffix := time.Now().Format("150405")
	erin, _ := newExternalParty(t, token, "e2e-erin-"+suffix, "5")
	fred, _ := newExternalParty(t, token, "e2e-fred-"+suffix, "20")

	p := newPage(t, false)
	login(t, p, "admin", false)
	navTo(t, p, "delegations")
	waitURL(t, p, baseURL+"/delegations")
	row := func(list, party string) playwright.Locator {
		return p.Locator(`[data-testid="` + list + `"][data-beneficiary="` + party + `"]`)
	}
	must(t, expect.Locator(row("minting-proposal-row", erin)).ToHaveCount(1))
	must(t, expect.Locator(row("minting-proposal-row", fred)).ToHaveCount(1))

	must(t, row("minting-proposal-row", erin).GetByTestId("minting-accept").Click())
	waitURL(t, p, regexp.MustCompile(`/delegations\?done=delegations-accept$`))
	must(t, expect.Locator(testID(p, "flash")).ToContainText("accepted"))
	must(t, expect.Locator(row("minting-active-row", erin).GetByTestId("merge-limit")).ToHaveText("5"))

	must(t, row("minting-proposal-row", fred).GetByTestId("minting-reject").Click())
	waitURL(t, p, regexp.MustCompile(`/delegations\?done=delegations-reject$`))
	must(t, expect.Locator(testID(p, "flash")).ToContainText("rejected"))
	must(t, expect.Locator(row("minting-proposal-row", fred)).ToHaveCount(0))
	must(t, expect.Locator(row("minting-active-row", fred)).ToHaveCount(0))

	// Seven faucet holdings for erin: the merge automation (every
	// minute) merges them down to the delegation's limit of 5.
	for range 7 {
		externalClient(t, token, "tap", "--server", baseURL, "--party", erin, "--amount", "1")
	}
	// The automation may run between two taps (it did in a loaded run:
	// "merged 2 holdings" after six, then again after the seventh), so
	// the page is read until erin is down to 5, however many runs that
	// took, and the activity says what was merged.
	activity := row("minting-active-row", erin).GetByTestId("minting-activity-row")
	for deadline := time.Now().Add(150 * time.Second); ; {
		_, err := p.Goto("/delegations")
		must(t, err)
		text, _ := row("minting-active-row", erin).TextContent()
		if n, err := activity.Count(); err == nil && n > 0 && strings.Contains(text, "(now 5)") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the delegate did not bring erin down to 5 within 150 s: %s", text)
		}
		time.Sleep(2 * time.Second)
	}
	must(t, expect.Locator(activity.First()).ToContainText(regexp.MustCompile(`merged [2-3] holdings`)))
	screenshot(t, p, "delegations")

	must(t, row("minting-active-row", erin).GetByTestId("minting-withdraw").Click())
	waitURL(t, p, regexp.MustCompile(`/delegations\?done=delegations-withdraw$`))
	must(t, expect.Locator(testID(p, "flash")).ToContainText("withdrawn"))
	must(t, expect.Locator(row("minting-active-row", erin)).ToHaveCount(0))
}
