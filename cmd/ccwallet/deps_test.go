package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoExamplePackagesLinked: issue 23 point 5. A library's example
// package (zitadel/oidc's example storage once backed the development
// OpenID Provider) is demo code, not maintained for production: nothing
// under an /example/ path may be linked into the binary.
func TestNoExamplePackagesLinked(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.Contains(pkg, "/example/") {
			t.Errorf("the binary links %s", pkg)
		}
	}
}
