package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// screenshotDir is where screenshot saves pictures: $CCWALLET_SCREENSHOTS
// (make screenshots sets docs/img). Unset, as in make test, none are taken.
var screenshotDir = os.Getenv("CCWALLET_SCREENSHOTS")

// screenshot saves the page as it is now, whole, at a phone's width
// (phone-NAME.png) and a desktop's (NAME.png), then puts the page's size
// back. A screenshot is a picture for people, not a check (the assertions
// around it are): one that times out, as one did once in ~20 runs of make
// test on the busy 2-core machine (30 s), is logged and the test goes on.
func screenshot(t *testing.T, p playwright.Page, name string) {
	t.Helper()
	if screenshotDir == "" {
		return
	}
	must(t, os.MkdirAll(screenshotDir, 0o755))
	old := p.ViewportSize()
	for _, s := range []struct {
		width int
		file  string
	}{{390, "phone-" + name}, {1280, name}} {
		must(t, p.SetViewportSize(s.width, 844))
		_, err := p.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(filepath.Join(screenshotDir, s.file+".png")),
			FullPage: playwright.Bool(true), Timeout: playwright.Float(15000)})
		if err != nil {
			t.Logf("screenshot %s not taken: %v", s.file, err)
		}
	}
	if old != nil {
		must(t, p.SetViewportSize(old.Width, old.Height))
	}
}
