package web

// OrgRuleListed reports whether a route under an organisation has a rule
// for Organisation Administrators in orgAdminOwnRoutes (tests only).
func OrgRuleListed(method, route string) bool {
	if method == "HEAD" {
		method = "GET"
	}
	_, key, ok := orgRouteKeys(method, route)
	_, listed := orgAdminOwnRoutes[key]
	return ok && listed
}
