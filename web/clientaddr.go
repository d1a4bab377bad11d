package web

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// ClientAddr finds a request's client address for per-address limits.
// Behind a reverse proxy the connection's address is the proxy's, and
// X-Forwarded-For carries the client's; but anyone can send that header,
// so it is believed only from the configured trusted proxies.
type ClientAddr struct {
	trusted []netip.Prefix
}

// NewClientAddr takes the trusted proxies as addresses or CIDR prefixes
// (10.0.0.0/8, 127.0.0.1, ::1). None: X-Forwarded-For is ignored.
func NewClientAddr(trustedProxies []string) (*ClientAddr, error) {
	c := &ClientAddr{}
	for _, s := range trustedProxies {
		s = strings.TrimSpace(s)
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				return nil, fmt.Errorf("trusted proxy %q: not an IP address or CIDR prefix", s)
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		c.trusted = append(c.trusted, p.Masked())
	}
	return c, nil
}

// Of returns the client's address: the connection's, or, when that is a
// trusted proxy, the nearest X-Forwarded-For hop that is not one (the
// hops left of it were written by whoever the proxy talked to, and are
// not evidence). A nil ClientAddr uses the connection's address.
func (c *ClientAddr) Of(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	if c == nil || !c.isTrusted(addr) {
		return addr.Unmap().String()
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a garbled hop: the last trusted one is what we know
		}
		addr = hop
		if !c.isTrusted(hop) {
			break
		}
	}
	return addr.Unmap().String()
}

func (c *ClientAddr) isTrusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range c.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Key is the client's address as a rate-limit key: an IPv4 address, or
// an IPv6 address's /64, since one subscriber usually holds a whole /64
// and could otherwise take a fresh budget per address.
func (c *ClientAddr) Key(r *http.Request) string {
	s := c.Of(r)
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is6() {
		return s
	}
	return netip.PrefixFrom(a, 64).Masked().String()
}
