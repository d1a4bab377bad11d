package api_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/handlers/handlerstest"
)

// TestDevnetDocsSeedExample: docs/devnet.md's curl line that seeds a
// running server, sent with exactly the headers it shows, is answered
// 201. Before, it showed no Content-Type, and curl's default
// (application/x-www-form-urlencoded) is refused.
func TestDevnetDocsSeedExample(t *testing.T) {
	doc, err := os.ReadFile("../../docs/devnet.md")
	if err != nil {
		t.Fatal(err)
	}
	// The command, joined across its continuation lines.
	text := strings.ReplaceAll(string(doc), "\\\n", " ")
	var line string
	for l := range strings.SplitSeq(text, "\n") {
		if strings.Contains(l, "curl") && strings.Contains(l, "/v0/admin/devnet/seed") {
			line = l
		}
	}
	if line == "" {
		t.Fatal("docs/devnet.md has no curl line for /v0/admin/devnet/seed")
	}
	headers := regexp.MustCompile(`-H "([^"]+)"|-H '([^']+)'`).FindAllStringSubmatch(line, -1)
	file := regexp.MustCompile(`--data-binary @docs/scenarios/(\S+)`).FindStringSubmatch(line)
	if file == nil {
		t.Fatalf("the docs' line sends no scenario file: %s", line)
	}
	handlerstest.ForEachAPI(t, func(t *testing.T, a *handlerstest.API) {
		admin := a.As("admin")
		req := httptest.NewRequest("POST", "/v0/admin/devnet/seed", bytes.NewReader([]byte(exampleScenario(t, file[1]))))
		// curl's default for --data-binary, unless the line sets one.
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for _, h := range headers {
			kv := h[1] + h[2]
			k, v, _ := strings.Cut(kv, ":")
			if strings.EqualFold(k, "Authorization") {
				continue
			}
			req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
		}
		req.Header.Set("Authorization", "Bearer "+admin.Token)
		rec := httptest.NewRecorder()
		a.H.ServeHTTP(rec, req.WithContext(context.Background()))
		if rec.Code != http.StatusCreated {
			t.Errorf("the docs' seed line: %d %s", rec.Code, rec.Body.String())
		}
	})
}
