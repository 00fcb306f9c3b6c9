package handlers

import (
	"net/http"

	"github.com/trustframe/trustframe/views"
)

// ListKeys is Reference Data > Signing keys (and its API: the SSA keys).
func (h *SSA) ListKeys(w http.ResponseWriter, r *http.Request) {
	PageOrList(w, r, func() { h.keysPage(w, r, http.StatusOK, "", "") }, h.SigningKeys.SSA.Keys)
}

// keysPage renders the Signing keys page; ssaErr or fedErr says why an
// action of its SSA or federation section was refused.
func (h *SSA) keysPage(w http.ResponseWriter, r *http.Request, status int, ssaErr, fedErr string) {
	o, err := h.SigningKeys.Overview(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Render(w, r, status, views.SigningKeys(h.Shell(r, "Signing keys", "reference", views.Crumb{Label: "Reference Data", Href: "/references"}, views.Crumb{Label: "Signing keys"}),
		views.NewKeysPage(o, ssaErr, fedErr)))
}

// RotateKey makes a new SSA signing key for an algorithm.
func (h *SSA) RotateKey(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Alg string `json:"alg"`
	}
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	jwk, err := h.SigningKeys.RotateSSA(r.Context(), h.actor(r), in.Alg, refused)
	if e, ok := refusedHere(r, err, http.StatusUnprocessableEntity); ok {
		// The rotate form's one field is a list: its refusal is said above
		// the form, as the page's other refusals are.
		h.keysPage(w, r, e.Status, "No key made: "+refusalText(e), "")
		return
	}
	h.Saved(w, r, Saved{Err: err, Flash: "New " + in.Alg + " key " + jwk.Kid + " signs from now on.", Page: "/references/signing-keys", Status: http.StatusCreated, Body: jwk})
}

// RetireKey stops publishing an SSA signing key.
func (h *SSA) RetireKey(w http.ResponseWriter, r *http.Request) {
	kid := PathParam(r, "kid")
	err := h.SigningKeys.RetireSSA(r.Context(), h.actor(r), kid)
	if e, ok := refusedHere(r, err, http.StatusConflict); ok {
		h.keysPage(w, r, e.Status, e.Message, "")
		return
	}
	h.Saved(w, r, Saved{Err: err, Flash: "Key " + kid + " is retired and no longer published.", Page: "/references/signing-keys", Status: http.StatusNoContent})
}
