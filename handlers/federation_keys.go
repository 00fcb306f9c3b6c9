package handlers

import (
	"bytes"
	"io"
	"net/http"

	"github.com/trustframe/trustframe/views"
)

// ListFederationKeys is the API list of the federation signing keys
// (docs/design.md §13), newest first.
func (h *SSA) ListFederationKeys(w http.ResponseWriter, r *http.Request) {
	keys, err := h.SigningKeys.Federation.Keys(r.Context())
	writeFound(w, r, keys, err)
}

// RotateFederationKey makes a new federation signing key at once: the
// emergency path (a compromised key). PrepareFederationKey and
// ActivateFederationKey are the staged rollover (docs/design.md §13).
func (h *SSA) RotateFederationKey(w http.ResponseWriter, r *http.Request) {
	if !noFields(w, r) {
		return
	}
	jwk, err := h.SigningKeys.RotateFederation(r.Context(), h.actor(r))
	h.Saved(w, r, Saved{Err: err, Flash: "New federation key " + jwk.KeyID + " signs from now on.", Page: "/references/signing-keys", Status: http.StatusCreated, Body: jwk})
}

// PrepareFederationKey publishes the next federation key, not signing yet;
// 409 while one is prepared.
func (h *SSA) PrepareFederationKey(w http.ResponseWriter, r *http.Request) {
	if !noFields(w, r) {
		return
	}
	jwk, err := h.SigningKeys.PrepareFederation(r.Context(), h.actor(r))
	if e, ok := refusedHere(r, err, http.StatusConflict); ok {
		h.keysPage(w, r, e.Status, "", e.Message)
		return
	}
	h.Saved(w, r, Saved{Err: err, Flash: "Next federation key " + jwk.KeyID + " is published; it does not sign yet.", Page: "/references/signing-keys",
		Status: http.StatusCreated, Body: jwk})
}

// ActivateFederationKey lets the next federation key sign; 409 without one
// or before it has been published long enough.
func (h *SSA) ActivateFederationKey(w http.ResponseWriter, r *http.Request) {
	if !noFields(w, r) {
		return
	}
	k, err := h.SigningKeys.ActivateFederation(r.Context(), h.actor(r))
	if e, ok := refusedHere(r, err, http.StatusConflict); ok {
		h.keysPage(w, r, e.Status, "", views.ActivateRefused(err, e.Message))
		return
	}
	h.Saved(w, r, Saved{Err: err, Flash: "Federation key " + k.Kid + " signs from now on; the previous one stays published for one statement lifetime.", Page: "/references/signing-keys",
		Status: http.StatusOK, Body: k})
}

// noFields checks an API body where there is nothing to choose: when there
// is one it must be an empty object; a field in it is refused, not
// ignored. It reports whether to go on (else the refusal is written).
func noFields(w http.ResponseWriter, r *http.Request) bool {
	if !IsAPI(r) {
		return true
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		WriteError(w, r, CodeTooLarge.New("the body is too large"))
		return false
	}
	if len(bytes.TrimSpace(b)) > 0 {
		r.Body = io.NopCloser(bytes.NewReader(b))
		var none struct{}
		if err := Decode(w, r, &none); err != nil {
			WriteError(w, r, err)
			return false
		}
	}
	return true
}
