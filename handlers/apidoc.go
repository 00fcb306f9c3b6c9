package handlers

import (
	"net/http"
	"sync"

	"github.com/trustframe/trustframe/handlers/openapi"
	"github.com/trustframe/trustframe/views"
)

// apiDocCache holds the API page's laid-out description, built on first
// use: it never changes while the server runs.
type apiDocCache struct {
	once sync.Once
	doc  views.APIDoc
	err  error
}

// APIReference is the API page: the description of the latest release
// (openapi.Doc).
func (h *Pages) APIReference(w http.ResponseWriter, r *http.Request) {
	c := &h.apiDoc
	c.once.Do(func() { c.doc, c.err = openapi.Doc("2.6.0") })
	if c.err != nil {
		WriteError(w, r, c.err)
		return
	}
	Render(w, r, http.StatusOK, views.APIPage(h.Shell(r, "API", "api", views.Crumb{Label: "API"}), c.doc))
}
