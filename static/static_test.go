package static

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHandler(t *testing.T) {
	tests := []struct {
		path   string
		status int
		cache  string
		ctype  string
	}{
		{URL("htmx.min.js"), http.StatusOK, "immutable", "javascript"},
		{URL("app.css"), http.StatusOK, "immutable", "text/css"},
		{URL("app.js"), http.StatusOK, "immutable", "javascript"},
		{URL("favicon.svg"), http.StatusOK, "immutable", "image/svg+xml"},
		{"/static/000000000000/app.css", http.StatusOK, "no-cache", "text/css"},
		{"/static/x/missing.css", http.StatusNotFound, "", "application/json"},
		{"/static/app.css", http.StatusNotFound, "", "application/json"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d", rec.Code, tc.status)
			}
			if !strings.Contains(rec.Header().Get("Cache-Control"), tc.cache) {
				t.Errorf("Cache-Control %q, want %s", rec.Header().Get("Cache-Control"), tc.cache)
			}
			if !strings.Contains(rec.Header().Get("Content-Type"), tc.ctype) {
				t.Errorf("Content-Type %q, want %s", rec.Header().Get("Content-Type"), tc.ctype)
			}
		})
	}
	if !strings.HasPrefix(URL("htmx.min.js"), "/static/") || URL("htmx.min.js") == URL("app.js") {
		t.Errorf("URLs: %s %s", URL("htmx.min.js"), URL("app.js"))
	}
}

// TestFaviconRedirect: /favicon.ico, which browsers ask for whatever the
// page links, leads to the SVG coin's content-hash URL.
func TestFaviconRedirect(t *testing.T) {
	rec := httptest.NewRecorder()
	Redirect("favicon.svg").ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/favicon.ico", nil))
	if rec.Code != http.StatusFound || rec.Header().Get("Location") != URL("favicon.svg") || !strings.HasSuffix(URL("favicon.svg"), "/favicon.svg") {
		t.Errorf("GET /favicon.ico = %d %q", rec.Code, rec.Header().Get("Location"))
	}
}

// The first visit stays small: htmx, our CSS and JS together.
func TestAssetsAreSmall(t *testing.T) {
	total := 0
	for _, name := range []string{"htmx.min.js", "app.css", "app.js", "favicon.svg"} {
		b, err := files.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		total += len(b)
	}
	if total > 80<<10 {
		t.Errorf("assets are %d bytes", total)
	}
}
