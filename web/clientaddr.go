package web

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/trustframe/trustframe/clientlimit"
)

// ParseTrustedProxies reads --trusted-proxies: comma-separated addresses
// and CIDR prefixes of the reverse proxies in front of the server (an
// address alone is itself only). Empty trusts nobody.
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if strings.Contains(part, "/") {
			p, err := netip.ParsePrefix(part)
			if err != nil {
				return nil, fmt.Errorf("%q is not an IP address or CIDR prefix (e.g. 10.0.0.0/8, 192.0.2.7, fd00::/8)", part)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(part)
		if err != nil {
			return nil, fmt.Errorf("%q is not an IP address or CIDR prefix (e.g. 10.0.0.0/8, 192.0.2.7, fd00::/8)", part)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// trusted reports whether a is one of the trusted proxies.
func (s *Server) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientAddr is the address of the client that sent r (docs/design.md
// §14): the TCP peer, unless the peer is a trusted proxy
// (--trusted-proxies); then X-Forwarded-For is read from the right, each
// trusted proxy stepping back one hop, and the client is the first
// address that is not a trusted proxy. A value that is not an IP address
// ends the walk: the client is then the last hop that could be told (the
// nearest trusted proxy). From a peer that is not trusted the header is
// ignored: anyone can write it.
func (s *Server) clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil || len(s.cfg.TrustedProxies) == 0 || !s.trusted(peer) {
		return host
	}
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(v, ",")...)
	}
	client := peer.Unmap()
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := parseHop(hops[i])
		if !ok {
			break
		}
		client = a
		if !s.trusted(a) {
			break
		}
	}
	return client.String()
}

// clientNet is the client as limits count it: an IPv4 address itself,
// an IPv6 address by its /64 (clientlimit.Block).
func (s *Server) clientNet(r *http.Request) string { return clientlimit.Block(s.clientAddr(r)) }

// parseHop reads one X-Forwarded-For element: an address, optionally
// with a port (192.0.2.7:443, [2001:db8::1]:443).
func parseHop(v string) (netip.Addr, bool) {
	v = strings.TrimSpace(v)
	if a, err := netip.ParseAddr(v); err == nil && a.Zone() == "" {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(v); err == nil && ap.Addr().Zone() == "" {
		return ap.Addr().Unmap(), true
	}
	return netip.Addr{}, false
}
