package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// browserOrigin resolves a Location value against base the way a browser
// does (the WHATWG URL standard's basic parser, for the parts that decide
// the origin): leading and trailing C0 controls and spaces are stripped,
// tabs and newlines removed anywhere, "\" is "/" in special schemes, and
// two slashes start an authority. It returns the origin, "null" for an
// opaque one, or "" when the browser would not navigate at all.
func browserOrigin(base *url.URL, loc string) string {
	s := strings.TrimFunc(loc, func(r rune) bool { return r <= ' ' })
	s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	special := map[string]bool{"http": true, "https": true, "ws": true, "wss": true, "ftp": true, "file": true}
	isSlash := func(c byte) bool { return c == '/' || c == '\\' }
	if i := schemeEnd(s); i > 0 {
		scheme, rest := strings.ToLower(s[:i]), s[i+1:]
		switch {
		case !special[scheme]:
			return "null" // javascript:, data:, mailto: ...
		case scheme != base.Scheme:
			// special authority slashes: any run of slashes, then a host
			return authority(scheme, strings.TrimLeft(rest, `/\`))
		}
		s = rest // same special scheme without "//": relative to base
	}
	if len(s) >= 2 && isSlash(s[0]) && isSlash(s[1]) {
		return authority(base.Scheme, strings.TrimLeft(s, `/\`))
	}
	return base.Scheme + "://" + base.Host
}

func schemeEnd(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return i
		default:
			return -1
		}
	}
	return -1
}

func authority(scheme, s string) string {
	if i := strings.IndexAny(s, `/\?#`); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		s = s[i+1:]
	}
	host, err := url.PathUnescape(s)
	if err != nil || host == "" {
		return ""
	}
	return scheme + "://" + strings.ToLower(host)
}

// TestBrowserOriginResolver checks the test's own resolver on cases whose
// browser answer is known, so the table below judges by the right rules.
func TestBrowserOriginResolver(t *testing.T) {
	base, _ := url.Parse("https://wallet.example/login")
	for loc, want := range map[string]string{
		"/home":                  "https://wallet.example",
		"//evil.example/x":       "https://evil.example",
		`/\evil.example`:         "https://evil.example",
		`\\evil.example`:         "https://evil.example",
		"/\t/evil.example":       "https://evil.example",
		" //evil.example":        "https://evil.example",
		"https:evil.example":     "https://wallet.example",
		`https:\\evil.example`:   "https://evil.example",
		"http:evil.example":      "http://evil.example",
		"javascript:alert(1)":    "null",
		"//a@evil.example":       "https://evil.example",
		"?next=//evil.example":   "https://wallet.example",
		"/%2F%2Fevil.example":    "https://wallet.example",
		"//%65vil.example":       "https://evil.example",
		"/\n/evil.example/a?b#c": "https://evil.example",
	} {
		if got := browserOrigin(base, loc); got != want {
			t.Errorf("browserOrigin(%q) = %q, want %q", loc, got, want)
		}
	}
}

// TestLocalPathBypasses: no known open-redirect trick gets a redirect
// target off the origin, judged by how a browser resolves the Location the
// server actually sends (after http.Redirect's own cleaning) and an htmx
// HX-Redirect (sent as is).
func TestLocalPathBypasses(t *testing.T) {
	base, _ := url.Parse("https://wallet.example/login")
	origin := "https://wallet.example"
	bypasses := []string{
		`/../\evil.example`, // issue 21: next=/../%5Cevil.example
		"/\t/evil.example",  // issue 21: next=/%09/evil.example
		"//evil.example",
		"///evil.example",
		`/\evil.example`,
		`/\/evil.example`,
		`\/evil.example`,
		`\\evil.example`,
		`/\\evil.example`,
		`/./\evil.example`,
		"/.//evil.example",
		"/..//evil.example",
		`/foo/../../\evil.example`,
		"/%2F%2Fevil.example",
		"/%2f/evil.example",
		"/%5Cevil.example",
		"/%5c%5cevil.example",
		"/%2e%2e/%5Cevil.example",
		"/%09/evil.example",
		"/%0A/evil.example",
		"/%0d%0aLocation:%20https://evil.example",
		"/\n/evil.example",
		"/\r\n/evil.example",
		"/\x00/evil.example",
		"/\x7f/evil.example",
		" //evil.example",
		"\t//evil.example",
		"\n//evil.example",
		"https://evil.example",
		"http://evil.example",
		"HTTPS://evil.example",
		"https:evil.example",
		`https:\\evil.example`,
		"http:/evil.example",
		"//wallet.example@evil.example",
		"https://wallet.example@evil.example/",
		`/\@evil.example`,
		"//%65vil.example",
		"/%252F%252Fevil.example",
		"/\u3002evil.example",
		"/%E3%80%82/evil.example",
		"javascript:alert(document.domain)",
		"JaVaScRiPt:alert(1)",
		"data:text/html,<script>alert(1)</script>",
		"evil.example",
		"/" + strings.Repeat("a", MaxRedirectPath) + "//evil.example",
		"/ok?x=\t//evil.example",
	}
	if len(bypasses) < 25 {
		t.Fatalf("only %d cases", len(bypasses))
	}
	for _, in := range bypasses {
		got := LocalPath(in)
		if !strings.HasPrefix(got, "/") || !printable(got) {
			t.Errorf("LocalPath(%q) = %q: not a plain path", in, got)
		}
		if o := browserOrigin(base, got); o != origin {
			t.Errorf("LocalPath(%q) = %q: a browser goes to %q", in, got, o)
		}
		// What the server really sends: http.Redirect cleans the path.
		w := httptest.NewRecorder()
		http.Redirect(w, httptest.NewRequest("GET", "/login", nil), got, http.StatusSeeOther)
		if loc := w.Header().Get("Location"); browserOrigin(base, loc) != origin {
			t.Errorf("LocalPath(%q) = %q: Location %q leaves the origin", in, got, loc)
		}
	}
}

// TestLocalPathKeeps: ordinary local targets survive, so the check does not
// pass by always answering "/".
func TestLocalPathKeeps(t *testing.T) {
	for in, want := range map[string]string{
		"/":                              "/",
		"/history":                       "/history",
		"/history/":                      "/history/",
		"/history?page=2&kind=transfer":  "/history?page=2&kind=transfer",
		"/offers?x=%2F%2Fevil.example":   "/offers?x=%2F%2Fevil.example",
		"/login?next=%2F%2Fevil.example": "/login?next=%2F%2Fevil.example",
		"/a/./b/../c":                    "/a/c",
		"/send#top":                      "/send",
		"/history?q=%0A":                 "/history",
		"":                               "/",
	} {
		if got := LocalPath(in); got != want {
			t.Errorf("LocalPath(%q) = %q, want %q", in, got, want)
		}
	}
}
