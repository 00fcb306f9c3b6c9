package formats

import "net/url"

// CheckEntityID checks a participant's federation entity ID
// (docs/design.md §13): an https URL without query or fragment, like an
// issuer; plain http only on a loopback host and only when private issuer
// URLs are allowed. It returns the problem, or "" when the ID is good.
func CheckEntityID(raw string, allowPrivate bool) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "The federation entity ID must be an https URL without query, fragment or credentials."
	}
	switch u.Scheme {
	case "https":
		return ""
	case "http":
		if allowPrivate && LoopbackHost(u.Hostname()) {
			return ""
		}
		return "The federation entity ID must be an https URL (http only on a loopback host when private issuer URLs are allowed)."
	}
	return "The federation entity ID must be an https URL."
}
