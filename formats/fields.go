// Package formats checks the shape of field values the directory accepts:
// country codes (ISO 3166-1), https URLs, redirect URIs, WebAuthn origins and
// the CIBA delivery modes (docs/design.md §5), and how deeply the JSON a
// client sends may nest (jsondepth.go). It knows neither HTTP nor SQL.
package formats

import (
	"net"
	"net/url"
	"strconv"
	"strings"
)

// ValidCountry reports whether s is an officially assigned ISO 3166-1
// alpha-2 code, in capitals (countries.go).
func ValidCountry(s string) bool {
	_, ok := countries[s]
	return ok
}

// ValidHTTPSURL reports whether s is an absolute https URL with a host.
func ValidHTTPSURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "https" && u.Host != "" && u.User == nil && u.Fragment == ""
}

// ValidRedirectURI accepts https URLs, and http only on loopback (RFC 8252).
func ValidRedirectURI(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.Fragment != "" || u.User != nil {
		return false
	}
	switch u.Scheme {
	case "https":
		return true
	case "http":
		return LoopbackHost(u.Hostname())
	}
	return false
}

// LoopbackHost reports whether h, a URL's host name, names this machine:
// localhost or a loopback address. It is the one rule for where plain
// http is allowed (redirect URIs, development entity IDs and base URLs).
func LoopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// ValidWebAuthnOrigin reports whether s is a WebAuthn origin:
// https://host[:port], no path (or "/"), query, fragment or credentials.
func ValidWebAuthnOrigin(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Hostname() == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return false
	}
	if u.Path != "" || strings.HasSuffix(s, "/") {
		return false
	}
	if p := u.Port(); p != "" && !ValidPort(p) {
		return false
	}
	return !strings.ContainsAny(u.Hostname(), " *")
}

// ValidPort reports whether p, the port of a URL, is a TCP port a
// connection can be made to: 1 to 65535 in decimal (0 is not one).
func ValidPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535 && p[0] != '+' && p[0] != '-'
}

// DeliveryModes are the CIBA token delivery modes.
var DeliveryModes = []string{"poll", "ping", "push"}
