package views

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLivePartsSwapTheirChildren: every live part (an element reloading
// on an event "from:body") keeps itself in the page and swaps in the
// children of its answer, with attributes of its own. With an outerHTML
// swap a reload asked while the part's earlier one was on its way was
// dropped by htmx with the element the answer replaced, and the part
// showed the older answer.
func TestLivePartsSwapTheirChildren(t *testing.T) {
	files, err := filepath.Glob("*.templ")
	if err != nil {
		t.Fatal(err)
	}
	idAttr := regexp.MustCompile(`\bid="([^"]+)"`)
	parts := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if !strings.Contains(line, `from:body`) || strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			parts++
			at := fmt.Sprintf("%s:%d", f, i+1)
			selects := `hx-select={ "#" + id + " > *" }` // LiveSection
			if m := idAttr.FindStringSubmatch(line); m != nil {
				selects = `hx-select="#` + m[1] + ` > *"`
			}
			for _, want := range []string{`hx-swap="innerHTML"`, `hx-disinherit="*"`, selects} {
				if !strings.Contains(line, want) {
					t.Errorf("%s: live part without %s", at, want)
				}
			}
		}
	}
	if parts < 6 {
		t.Errorf("found %d live parts, want at least 6", parts)
	}
}
