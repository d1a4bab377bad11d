package web

import (
	"net/http/httptest"
	"testing"
)

// TestClientAddr: X-Forwarded-For names the client only when the
// connection comes from a trusted proxy, and then only its nearest
// untrusted hop counts (what a client writes itself is left of that).
func TestClientAddr(t *testing.T) {
	trusted, err := NewClientAddr([]string{"10.0.0.0/8", "::1"})
	if err != nil {
		t.Fatal(err)
	}
	none, _ := NewClientAddr(nil)
	for _, c := range []struct {
		name   string
		c      *ClientAddr
		remote string
		xff    []string
		want   string
	}{
		{"no proxies configured: the header is ignored", none, "203.0.113.9:5000", []string{"1.2.3.4"}, "203.0.113.9"},
		{"nil: the connection", nil, "203.0.113.9:5000", []string{"1.2.3.4"}, "203.0.113.9"},
		{"untrusted connection: the header is ignored", trusted, "203.0.113.9:5000", []string{"1.2.3.4"}, "203.0.113.9"},
		{"trusted proxy", trusted, "10.1.2.3:5000", []string{"1.2.3.4"}, "1.2.3.4"},
		{"a spoofed hop left of the real one", trusted, "10.1.2.3:5000", []string{"6.6.6.6, 1.2.3.4"}, "1.2.3.4"},
		{"two proxies", trusted, "10.1.2.3:5000", []string{"1.2.3.4, 10.9.9.9"}, "1.2.3.4"},
		{"several header lines", trusted, "10.1.2.3:5000", []string{"6.6.6.6", "1.2.3.4"}, "1.2.3.4"},
		{"garbage hop: the last trusted one", trusted, "10.1.2.3:5000", []string{"1.2.3.4, nonsense"}, "10.1.2.3"},
		{"no header from a proxy", trusted, "10.1.2.3:5000", nil, "10.1.2.3"},
		{"IPv6 proxy", trusted, "[::1]:5000", []string{"2001:db8::1"}, "2001:db8::1"},
		{"IPv4-mapped", trusted, "10.1.2.3:5000", []string{"::ffff:1.2.3.4"}, "1.2.3.4"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.remote
		for _, v := range c.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		if got := c.c.Of(r); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	for remote, want := range map[string]string{
		"203.0.113.9:1":            "203.0.113.9",
		"[2001:db8:1:2:3:4:5:6]:1": "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1]:1": "2001:db8:1:2::/64",
		"[::ffff:203.0.113.9]:1":   "203.0.113.9",
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		if got := none.Key(r); got != want {
			t.Errorf("Key of %s = %q, want %q", remote, got, want)
		}
	}
	if _, err := NewClientAddr([]string{"not-an-ip"}); err == nil {
		t.Error("a bad trusted proxy was accepted")
	}
}
