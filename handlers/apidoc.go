package handlers

import (
	"net/http"
	"sync"

	"github.com/trustframe/trustframe/apidoc"
	"github.com/trustframe/trustframe/handlers/openapi"
	"github.com/trustframe/trustframe/views"
)

// apiDoc is the API page's laid-out description, built on first use: it
// never changes while the server runs.
var apiDoc = sync.OnceValues(func() (views.APIDoc, error) { return apidoc.Doc("2.6.0") })

// APIReference is the API page: the description of the latest release
// (apidoc.Doc).
func (h *Pages) APIReference(w http.ResponseWriter, r *http.Request) {
	doc, err := apiDoc()
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Render(w, r, http.StatusOK, views.APIPage(h.Shell(r, "API", "api", views.Crumb{Label: "API"}), doc))
}

// Releases is GET /api/releases (public).
func (h *Pages) Releases(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=3600")
	WriteJSON(w, http.StatusOK, openapi.Releases)
}

// ReleaseSpec is GET /api/releases/{version}/openapi.yaml (public).
func (h *Pages) ReleaseSpec(w http.ResponseWriter, r *http.Request) {
	spec := openapi.Spec(PathParam(r, "version"))
	if spec == nil {
		WriteError(w, r, CodeNotFound.New("no machine-readable description of release "+PathParam(r, "version")+" here"))
		return
	}
	w.Header().Set("Content-Type", "application/yaml")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Header().Set("Content-Disposition", `attachment; filename="trustframe-`+PathParam(r, "version")+`-openapi.yaml"`)
	_, _ = w.Write(spec)
}
