package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/trustframe/trustframe/handlers"
)

// appRule is what an application calling for itself may do on one route
// (docs/design.md §20).
type appRule int

const (
	// appOrg: on its own organisation.
	appOrg appRule = iota + 1
	// appOwn: on its own application ({appID} is its SoftwareStatementId);
	// another application of its organisation is 403.
	appOwn
)

// appRoutes are the /api routes under an organisation an application's
// token reaches, by method and the pattern after /api/organisations/{orgID}.
// Every other route is refused: 403 in its own organisation (and outside
// any organisation), 404 in another one. Keystores are public, outside
// /api.
var appRoutes = map[string]appRule{
	// Its organisation's record; its own application and SSA.
	"GET /":                           appOrg,
	"GET /softwarestatements/{appID}": appOwn,
	"GET /softwarestatements/{appID}/assertion": appOwn,
	// Its own certificates from the directory's CA (§18): list, issue,
	// read one (an issuing answer's Location), revoke. Listed before those routes are in the router, so that they
	// are its own as soon as they are.
	"GET /softwarestatements/{appID}/certificates":             appOwn,
	"POST /softwarestatements/{appID}/certificates/{certType}": appOwn,
	"GET /softwarestatements/{appID}/certificates/kid/{kid}":   appOwn,
	"PUT /softwarestatements/{appID}/certificates/kid/{kid}":   appOwn,
}

// appCheck holds an application's token to what appRoutes gives it:
// apiAuth calls it for this principal alone. Like orgAdminCheck, it looks
// the route up on the whole router, so a route added anywhere is refused
// until it is listed.
func (s *Server) appCheck(r *http.Request, p handlers.Principal) error {
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
	return appRefusal(p, method, pattern, path)
}

// appRefusal is why the application p may not make this request, nil when
// it may.
func appRefusal(p handlers.Principal, method, pattern, path string) error {
	const prefix = "/api/organisations/{orgID}"
	rest, under := strings.CutPrefix(pattern, prefix)
	if !under || (rest != "" && rest[0] != '/') {
		return appForbidden()
	}
	segs := strings.Split(path, "/")
	if orgID, err := url.PathUnescape(segs[strings.Count(prefix, "/")]); err != nil || !slices.Contains(p.Orgs, orgID) {
		return handlers.CodeNotFound.New("There is no organisation " + orgID + ".")
	}
	if rest == "" {
		rest = "/"
	}
	switch appRoutes[method+" "+rest] {
	case appOrg:
		return nil
	case appOwn:
		i := slices.Index(strings.Split(pattern, "/"), "{appID}")
		if i < 0 || i >= len(segs) {
			return appForbidden()
		}
		if appID, err := url.PathUnescape(segs[i]); err != nil || appID != p.App {
			return handlers.CodeForbidden.New("An application's token reaches its own application only, not another application of its organisation.")
		}
		return nil
	}
	return appForbidden()
}

func appForbidden() error {
	return handlers.CodeForbidden.New("An application's token reads its organisation's record, its own application and SSA, and its own certificates; nothing else.")
}
