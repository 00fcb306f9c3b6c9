package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/orgkeys"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// KeyMaterial serves the key material API of release 2.6.0 and its tab.
type KeyMaterial struct {
	*Base
	Org  *Org
	Keys *directory.KeyMaterials
}

// page is the Key material tab with its Add form (form, and errs beside
// its fields after a refusal).
func (h *KeyMaterial) page(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, form views.KeyMaterialForm, errs map[string]string) {
	items, err := h.Keys.List(r.Context(), o.OrganisationID)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Render(w, r, status, views.KeyMaterialTab(h.Shell(r, "Key material", "organisations", h.Org.orgCrumbs(&o, "Key material")...),
		views.NewKeyMaterialPage(h.Org.orgPage(o, views.TabKeyMaterial), items, form, errs)))
}

// List is GET …/key-material.
func (h *KeyMaterial) List(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	PageOrList(w, r, func() { h.page(w, r, http.StatusOK, o, views.KeyMaterialForm{}, nil) },
		func(ctx context.Context) ([]store.KeyMaterial, error) { return h.Keys.List(ctx, o.OrganisationID) })
}

// keyMaterialIn is the body of a create or an update.
type keyMaterialIn struct {
	PublicJwk    json.RawMessage `json:"PublicJwk"`
	PEM          string          `json:"PEM" text:"raw"`
	Use          string          `json:"Use"`
	Description  string          `json:"Description"`
	Status       string          `json:"Status"`
	RevokeReason string          `json:"RevokeReason"`
	// Read-only members a client may send back unchanged.
	KeyMaterialID  string `json:"KeyMaterialID"`
	OrganisationID string `json:"OrganisationId"`
	Kid            string `json:"Kid"`
	CreatedOn      any    `json:"CreatedOn"`
	UpdatedOn      any    `json:"UpdatedOn"`
	RevokedOn      any    `json:"RevokedOn"`
}

func (in keyMaterialIn) sent() directory.KeyMaterialSent {
	return directory.KeyMaterialSent{PublicJwk: in.PublicJwk, PEM: in.PEM, Kid: in.Kid, Use: in.Use, Description: in.Description,
		Status: in.Status, RevokeReason: in.RevokeReason}
}

// Create is POST …/key-material: a public JWK, or a PEM public key or
// certificate (the console's one Key field holds either).
func (h *KeyMaterial) Create(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	var in keyMaterialIn
	var form views.KeyMaterialForm
	isAPI, derr := DecodeAs(w, r, &in, &form)
	refused := FormRefusal(r, derr) // shown beside the fields with the layer's
	if derr != nil && refused == nil {
		WriteError(w, r, derr)
		return
	}
	sent := in.sent()
	if !isAPI {
		sent = form.Sent()
	}
	k, err := h.Keys.Create(r.Context(), h.actor(r), o.OrganisationID, sent, refused)
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "Key material " + k.Kid + " was added.", Page: paths.KeyMaterial(o.OrganisationID, k.KeyMaterialID),
			Status: http.StatusCreated, Body: k, ETag: k, Location: paths.API(paths.KeyMaterial(o.OrganisationID, k.KeyMaterialID))})
	case shownInPage(r, err):
		if errors.Is(err, directory.ErrHoldsPrivateKey) {
			form.Key = "" // a private key is not shown back
		}
		h.page(w, r, AsError(err).Status, o, form, orMessage(err, "PublicJwk"))
	default:
		WriteError(w, r, err)
	}
}

// item is the organisation of the URL and its key material {kmID}; a
// refusal is answered and ok is false.
func (h *KeyMaterial) item(w http.ResponseWriter, r *http.Request) (store.Organisation, store.KeyMaterial, bool) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return o, store.KeyMaterial{}, false
	}
	k, err := h.Keys.Get(r.Context(), o.OrganisationID, PathParam(r, "kmID"))
	if err != nil {
		WriteError(w, r, err)
		return o, k, false
	}
	return o, k, true
}

// Get is one item of key material (its page in the browser).
func (h *KeyMaterial) Get(w http.ResponseWriter, r *http.Request) {
	o, k, ok := h.item(w, r)
	if !ok {
		return
	}
	SetETag(w, k)
	if !HTMLPage(w, r, func() { h.itemPage(w, r, http.StatusOK, o, views.KeyMaterialDetail{Item: k, Edit: k}) }) {
		WriteJSON(w, http.StatusOK, k)
	}
}

// itemPage is the page of the key material p.Item, with its attachments
// and what p says besides (a refusal, what was sent).
func (h *KeyMaterial) itemPage(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, p views.KeyMaterialDetail) {
	atts, err := h.Keys.Attachments(r.Context(), p.Item.KeyMaterialID)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	p.OrgPage, p.Attachments, p.Reasons = h.Org.orgPage(o, views.TabKeyMaterial), atts, orgkeys.RevokeReasons
	Render(w, r, status, views.KeyMaterialItem(h.Shell(r, "Key material", "organisations", h.Org.orgCrumbs(&o, "Key "+p.Item.Kid)...), p))
}

// refusedEdit shows the item again after a refused edit or revocation:
// each message beside its field (Use, Description, RevokeReason), the
// others above the forms, and the Edit form with what was sent.
func (h *KeyMaterial) refusedEdit(w http.ResponseWriter, r *http.Request, o store.Organisation, k store.KeyMaterial, in keyMaterialIn, e *Error) {
	p := views.KeyMaterialDetail{Item: k, Edit: k, Errors: map[string]string{}}
	if in.Status == "Active" {
		p.Edit.Use, p.Edit.Description = in.Use, in.Description
	}
	var rest []string
	for _, f := range e.Fields {
		switch f.Field {
		case "Use", "Description", "RevokeReason":
			p.Errors[f.Field] = f.Message
		default:
			rest = append(rest, f.Message)
		}
	}
	if len(e.Fields) == 0 {
		rest = append(rest, refusalText(e))
	}
	p.Error = strings.Join(rest, " ")
	h.itemPage(w, r, e.Status, o, p)
}

// Update is PUT …/key-material/{id}: description and use, or revoke with
// Status "Revoked" and a RevokeReason (irreversible). A member left out
// keeps its value.
func (h *KeyMaterial) Update(w http.ResponseWriter, r *http.Request) {
	o, cur, ok := h.item(w, r)
	if !ok {
		return
	}
	in := keyMaterialIn{Use: cur.Use, Description: cur.Description, Status: cur.Status}
	// A Description sent back as read does not stop the update though
	// saved before the text rule, a revocation above all (docs/design.md
	// §4); what is still refused goes beside its field in the console.
	refused, ok := decodeKept(w, r, &in, func() map[string]storedText {
		return map[string]storedText{"Description": {&in.Description, cur.Description}}
	})
	if !ok {
		return
	}
	k, err := h.Keys.Update(r.Context(), h.actor(r), cur, in.sent(), refused, func(c store.KeyMaterial) error { return CheckIfMatch(r, c) })
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "Key material " + k.Kid + " was saved (" + k.Status + ").",
			Page: paths.KeyMaterial(o.OrganisationID, k.KeyMaterialID), Status: http.StatusOK, Body: k, ETag: k})
	case shownInPage(r, err):
		h.refusedEdit(w, r, o, cur, in, AsError(err))
	default:
		WriteError(w, r, err)
	}
}
