package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/trustframe/trustframe/handlers"
)

// orgRule is what an Organisation Administrator may do on one route
// (docs/design.md §19).
type orgRule int

const (
	// orgDenied: 403 — Reference Data, the directory's administrators,
	// creating or importing organisations, the change feed.
	orgDenied orgRule = iota + 1
	// orgOwn: allowed on their organisations; another's is 404.
	orgOwn
	// orgReadOnly: a change to what is read-only for them (the
	// organisation record, documents, certifications, authority claims,
	// reactivations): 403 on theirs, 404 on another's.
	orgReadOnly
	// orgAnyone: allowed; the use case shows them their own only (the
	// organisation list) or nothing of an organisation (home, API
	// reference).
	orgAnyone
	// orgAudit: the audit log of one of their organisations
	// (OrganisationId); without one, 403; another's, 404.
	orgAudit
)

// orgAdminOwnRoutes are the routes under an organisation
// (/organisations/{orgID}…, in the console and the API), by method and
// the pattern after {orgID}, with what an Organisation Administrator may
// do there. Every route under an organisation must be listed: one that is
// not is refused (403), and TestOrgAdminEveryRouteHasARule fails.
var orgAdminOwnRoutes = map[string]orgRule{
	// The organisation record and its status: read only.
	"GET /": orgOwn, "PUT /": orgReadOnly, "POST /": orgReadOnly, "GET /edit": orgReadOnly, "POST /status": orgReadOnly,
	"GET /reactivate": orgReadOnly, "POST /reactivate": orgReadOnly,
	// Contacts: all.
	"GET /contacts": orgOwn, "POST /contacts": orgOwn, "GET /contacts/new": orgOwn, "GET /contacts/{contactID}": orgOwn,
	"PUT /contacts/{contactID}": orgOwn, "POST /contacts/{contactID}": orgOwn, "DELETE /contacts/{contactID}": orgOwn,
	"GET /contacts/{contactID}/edit": orgOwn, "POST /contacts/{contactID}/delete": orgOwn,
	// Authorisation servers: create, update, status (not back from the end state).
	"GET /authorisationservers": orgOwn, "POST /authorisationservers": orgOwn, "GET /authorisationservers/new": orgOwn,
	"GET /authorisationservers/{serverID}": orgOwn, "PUT /authorisationservers/{serverID}": orgOwn, "POST /authorisationservers/{serverID}": orgOwn,
	"GET /authorisationservers/{serverID}/edit": orgOwn, "GET /authorisationservers/{serverID}/federation": orgOwn,
	"POST /authorisationservers/{serverID}/federation/check": orgOwn,
	"GET /authorisationservers/{serverID}/reactivate":        orgReadOnly, "POST /authorisationservers/{serverID}/reactivate": orgReadOnly,
	// Applications and their SSAs: the same.
	"GET /softwarestatements": orgOwn, "POST /softwarestatements": orgOwn, "GET /softwarestatements/new": orgOwn,
	"GET /softwarestatements/{appID}": orgOwn, "PUT /softwarestatements/{appID}": orgOwn, "POST /softwarestatements/{appID}": orgOwn,
	"GET /softwarestatements/{appID}/edit": orgOwn, "POST /softwarestatements/{appID}/status": orgOwn,
	"GET /softwarestatements/{appID}/assertion": orgOwn, "GET /softwarestatements/{appID}/audit": orgOwn,
	"GET /softwarestatements/{appID}/federation": orgOwn, "POST /softwarestatements/{appID}/federation/check": orgOwn,
	"GET /softwarestatements/{appID}/reactivate": orgReadOnly, "POST /softwarestatements/{appID}/reactivate": orgReadOnly,
	// Certificates: upload, revoke.
	"GET /certificates": orgOwn, "GET /certificates/kid/{kid}": orgOwn, "PUT /certificates/kid/{kid}": orgOwn,
	"GET /certificates/{certType}": orgOwn, "POST /certificates/{certType}": orgOwn, "PUT /certificates/{certType}": orgOwn,
	"GET /certificates/audit": orgOwn, "GET /certificates/kid/{kid}/revoke": orgOwn, "POST /certificates/kid/{kid}/revoke": orgOwn,
	"GET /certificates/new": orgOwn, "GET /certificates/new/review": orgOwn, "POST /certificates/new/review": orgOwn,
	// Certificates the directory's CA issues their applications: issue, list, download, revoke.
	"GET /softwarestatements/{appID}/certificates": orgOwn, "POST /softwarestatements/{appID}/certificates": orgOwn,
	"POST /softwarestatements/{appID}/certificates/{certType}": orgOwn, "PUT /softwarestatements/{appID}/certificates/kid/{kid}": orgOwn,
	"GET /softwarestatements/{appID}/certificates/kid/{kid}":                 orgOwn,
	"GET /softwarestatements/{appID}/certificates/kid/{kid}/certificate.pem": orgOwn,
	"GET /softwarestatements/{appID}/certificates/kid/{kid}/chain.pem":       orgOwn,
	// Key material and its attachments.
	"GET /key-material": orgOwn, "POST /key-material": orgOwn, "GET /key-material/new": orgOwn, "GET /key-material/{kmID}": orgOwn, "PUT /key-material/{kmID}": orgOwn,
	"POST /key-material/{kmID}": orgOwn, "GET /key-material/{kmID}/revoke": orgOwn, "GET /key-material/{kmID}/attachments": orgOwn, "POST /key-material/{kmID}/attachments": orgOwn,
	"GET /key-material/{kmID}/attachments/{attID}": orgOwn, "PUT /key-material/{kmID}/attachments/{attID}": orgOwn,
	"POST /key-material/{kmID}/attachments/{attID}": orgOwn, "GET /key-material/{kmID}/attachments/{attID}/content": orgOwn,
	// Authority claims, regulatory documents, certifications: read only.
	"GET /authority-claims": orgOwn, "GET /authority-claims/{claimID}": orgOwn, "POST /authority-claims": orgReadOnly, "GET /authority-claims/new": orgReadOnly,
	"PUT /authority-claims/{claimID}": orgReadOnly, "POST /authority-claims/{claimID}": orgReadOnly, "DELETE /authority-claims/{claimID}": orgReadOnly,
	"GET /documents": orgOwn, "GET /documents/{docID}": orgOwn, "POST /documents": orgReadOnly, "PUT /documents/{docID}": orgReadOnly,
	"POST /documents/{docID}": orgReadOnly, "GET /documents/new": orgReadOnly, "GET /documents/{docID}/edit": orgReadOnly,
	"POST /documents/{docID}/status":                 orgReadOnly,
	"GET /certifications":                            orgOwn,
	"GET /softwarestatements/{appID}/certifications": orgOwn, "GET /softwarestatements/{appID}/certifications/{certID}": orgOwn,
	"POST /softwarestatements/{appID}/certifications": orgReadOnly, "PUT /softwarestatements/{appID}/certifications/{certID}": orgReadOnly,
	"POST /softwarestatements/{appID}/certifications/{certID}": orgReadOnly, "GET /softwarestatements/{appID}/certifications/new": orgReadOnly,
	"GET /softwarestatements/{appID}/certifications/{certID}/edit": orgReadOnly,
	"GET /authorisationservers/{serverID}/certifications":          orgOwn, "GET /authorisationservers/{serverID}/certifications/{certID}": orgOwn,
	"POST /authorisationservers/{serverID}/certifications": orgReadOnly, "PUT /authorisationservers/{serverID}/certifications/{certID}": orgReadOnly,
	"POST /authorisationservers/{serverID}/certifications/{certID}": orgReadOnly, "GET /authorisationservers/{serverID}/certifications/new": orgReadOnly,
	"GET /authorisationservers/{serverID}/certifications/{certID}/edit": orgReadOnly,
	// Their organisation's administrators (People).
	"GET /administrators": orgOwn, "POST /administrators": orgOwn, "GET /administrators/new": orgOwn, "GET /administrators/{email}": orgOwn,
	"PUT /administrators/{email}": orgOwn, "POST /administrators/{email}": orgOwn, "DELETE /administrators/{email}": orgOwn,
}

// orgAdminOtherRoutes are the signed-in routes outside an organisation an
// Organisation Administrator may use; every other one is 403.
var orgAdminOtherRoutes = map[string]orgRule{
	"GET /": orgAnyone, "GET /api-reference": orgAnyone,
	"GET /organisations": orgAnyone, "GET /api/organisations": orgAnyone,
	"GET /audit": orgAudit, "GET /audit/export.csv": orgAudit, "GET /api/audit": orgAudit, "GET /api/audit/export.csv": orgAudit,
}

// orgRouteKeys splits a route pattern under an organisation into the
// pattern before {orgID} and the key of orgAdminOwnRoutes.
func orgRouteKeys(method, pattern string) (prefix, key string, ok bool) {
	for _, p := range []string{"/api/organisations/{orgID}", "/organisations/{orgID}"} {
		if rest, found := strings.CutPrefix(pattern, p); found && (rest == "" || rest[0] == '/') {
			if rest == "" {
				rest = "/"
			}
			return p, method + " " + rest, true
		}
	}
	return "", "", false
}

// orgRuleOf is the rule of a route for an Organisation Administrator.
func orgRuleOf(method, pattern string) orgRule {
	if method == http.MethodHead {
		method = http.MethodGet
	}
	if _, key, ok := orgRouteKeys(method, pattern); ok {
		if rule, listed := orgAdminOwnRoutes[key]; listed {
			return rule
		}
		return orgDenied
	}
	if len(pattern) > 1 {
		pattern = strings.TrimSuffix(pattern, "/") // a subrouter's own route is "/api/organisations/"
	}
	if rule, listed := orgAdminOtherRoutes[method+" "+pattern]; listed {
		return rule
	}
	return orgDenied
}

// orgAdminCheck holds an Organisation Administrator to their
// organisations (docs/design.md §19): sessionAuth and apiAuth call it for
// them alone, once the principal is known. It looks the route up on the
// whole router, so that a route added anywhere is refused until it is
// given a rule.
func (s *Server) orgAdminCheck(r *http.Request, p handlers.Principal) error {
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	pattern := s.handler.(*chi.Mux).Find(chi.NewRouteContext(), method, path)
	if pattern == "" {
		return nil // no route: the router answers 404 or 405
	}
	if pattern == "/audit" && r.URL.Query().Get("OrganisationId") == "" && !handlers.WantsJSON(r) {
		return nil // the page sends them to their organisation's records (handlers.Pages.Audit)
	}
	return orgAdminRefusal(p, method, pattern, path, r.URL.Query())
}

// orgAdminRefusal is why p may not make this request, nil when they may.
func orgAdminRefusal(p handlers.Principal, method, pattern, path string, q url.Values) error {
	rule := orgRuleOf(method, pattern)
	if prefix, _, ok := orgRouteKeys(method, pattern); ok {
		segs := strings.Split(path, "/")
		orgID, err := url.PathUnescape(segs[strings.Count(prefix, "/")])
		if err != nil || !slices.Contains(p.Orgs, orgID) {
			return handlers.CodeNotFound.New("There is no organisation " + orgID + ".")
		}
	}
	switch rule {
	case orgOwn, orgAnyone:
		return nil
	case orgReadOnly:
		return handlers.CodeForbidden.New("An Organisation Administrator cannot change this: the organisation record, its regulatory documents, certifications, authority claims and flags are kept by the directory's administrators, and only a Super User reactivates.")
	case orgAudit:
		id := q.Get("OrganisationId")
		if id == "" {
			return handlers.CodeForbidden.New("An Organisation Administrator reads the audit log of their organisation: add OrganisationId=" + strings.Join(p.Orgs, " or OrganisationId=") + ".")
		}
		if !slices.Contains(p.Orgs, id) {
			return handlers.CodeNotFound.New("There is no organisation " + id + ".")
		}
		return nil
	}
	return handlers.CodeForbidden.New("An Organisation Administrator cannot use this: it is the directory's administrators'.")
}
