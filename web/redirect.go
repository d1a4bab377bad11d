package web

import (
	"net/url"
	"path"
	"strings"
)

// MaxRedirectPath bounds a redirect target taken from a request; it also
// travels in the login cookie, which browsers cap at 4 KiB.
const MaxRedirectPath = 1024

// LocalPath returns p when it is a path on this origin, else "/". It is
// the one check for every redirect target that comes from a request (the
// login's next, the login state, form fields).
//
// Browsers read a Location header by the WHATWG URL rules, not RFC 3986:
// they drop tabs and newlines anywhere, treat "\" as "/", and take "//" or
// "/\" as the start of another host. So the result is rebuilt from parts
// rather than passed through: no scheme, no host, no backslash or control
// character (raw or percent-encoded), a cleaned path that starts with
// exactly one "/", and a query of plain printable ASCII.
func LocalPath(p string) string {
	if p == "" || len(p) > MaxRedirectPath || p[0] != '/' || !printable(p) {
		return "/"
	}
	u, err := url.Parse(p)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return "/"
	}
	// u.Path is decoded: %5C, %2F%2F and %09 show up here as what they are.
	if !strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") || !printable(u.Path) {
		return "/"
	}
	clean := path.Clean(u.Path)
	if strings.HasSuffix(u.Path, "/") && clean != "/" {
		clean += "/" // /history/ stays /history/
	}
	out := (&url.URL{Path: clean}).EscapedPath()
	if len(out) < 1 || out[0] != '/' || (len(out) > 1 && (out[1] == '/' || out[1] == '\\')) {
		return "/" // cannot happen after Clean; kept as the invariant's guard
	}
	if u.RawQuery != "" {
		// A query cannot change the origin; one that decodes to control
		// characters is dropped all the same.
		q, err := url.QueryUnescape(u.RawQuery)
		if err != nil || strings.ContainsFunc(q, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			return out
		}
		out += "?" + u.RawQuery
	}
	return out
}

// printable reports whether s is printable ASCII without backslash or
// space: nothing a browser strips, rewrites or reads as a separator.
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '\\' {
			return false
		}
	}
	return true
}
