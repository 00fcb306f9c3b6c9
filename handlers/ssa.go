package handlers

import (
	"encoding/json"
	"net/http"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/ssa"
	"github.com/trustframe/trustframe/ssa/keyring"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// SSA issues software statement assertions, publishes the keyset and
// serves Reference Data > Signing keys (ssa_keys.go, federation_keys.go).
type SSA struct {
	*Base
	Apps        *Applications
	SSAs        *directory.SSAs
	Keys        *keyring.Keyring
	SigningKeys *directory.SigningKeys
}

// pickAlg reads signingAlg: omitted means PS256; the match is exact.
func (h *SSA) pickAlg(r *http.Request) (string, error) {
	q := r.URL.Query()
	if len(q["signingAlg"]) > 1 {
		return "", CodeInvalidParameter.New("give signingAlg once").WithFields(FieldError{Code: CodeInvalidParameter.Name, Field: "signingAlg", Message: "give signingAlg once"}).WithExtra(map[string]any{"enabledAlgorithms": h.Keys.Enabled()})
	}
	if !q.Has("signingAlg") {
		return ssa.PS256, nil
	}
	return q.Get("signingAlg"), nil
}

// Issue answers GET …/softwarestatements/{id}/assertion: an SSA signed
// with signingAlg (application/jwt), or the application page showing it.
func (h *SSA) Issue(w http.ResponseWriter, r *http.Request) {
	orgID, appID := PathParam(r, "orgID"), PathParam(r, "appID")
	o, app, err := h.SSAs.Subject(r.Context(), orgID, appID)
	if err == nil && !IsAPI(r) {
		o, app, err = h.SSAs.Whole(r.Context(), orgID, appID)
	}
	if err != nil {
		WriteError(w, r, err)
		return
	}
	alg, err := h.pickAlg(r)
	var token string
	if err == nil {
		token, err = h.SSAs.Issue(r.Context(), h.actor(r), o, app, alg)
	}
	if IsAPI(r) || r.Header.Get("Accept") == "application/jwt" {
		if err != nil {
			WriteError(w, r, err)
			return
		}
		w.Header().Set("Content-Type", "application/jwt")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write([]byte(token))
		return
	}
	h.ssaPage(w, r, o, app, alg, token, err)
}

// ssaPage is the application page with the SSA just signed, or with why
// none was (err).
func (h *SSA) ssaPage(w http.ResponseWriter, r *http.Request, o store.Organisation, app store.SoftwareStatement, alg, token string, err error) {
	p, perr := h.Apps.AppDetailPage(r, o, app)
	if perr != nil {
		WriteError(w, r, perr)
		return
	}
	status, refused := http.StatusOK, ""
	if err != nil {
		e := AsError(err)
		if e.Status >= 500 {
			WriteError(w, r, err)
			return
		}
		status, refused = e.Status, sentence(e.Message)
		if e.Code != CodeApplicationNotActive.Name && e.Code != CodeOrganisationNotActive.Name {
			alg = "" // the page selects no algorithm it refused
		}
	}
	p.ShowSSA(h.Keys.Enabled(), alg, token, refused)
	Render(w, r, status, views.AppDetailWithSSA(h.Shell(r, app.ClientName, "organisations", views.OrgCrumbs(&o, app.ClientName)...), p))
}

// Keyset is GET /keystore/ssa.jwks: every published signing key.
func (h *SSA) Keyset(w http.ResponseWriter, r *http.Request) {
	keys, err := h.Keys.PublishedKeys(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Content-Type", "application/jwk-set+json")
	b, _ := json.Marshal(map[string]any{"keys": keys})
	_, _ = w.Write(b)
}
