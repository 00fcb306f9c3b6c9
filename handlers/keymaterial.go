package handlers

import (
	"context"
	"errors"
	"net/http"

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

// page is the Key material tab.
func (h *KeyMaterial) page(w http.ResponseWriter, r *http.Request, o store.Organisation) {
	items, err := h.Keys.List(r.Context(), o.OrganisationID)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Render(w, r, http.StatusOK, views.KeyMaterialTab(h.Shell(r, "Key material", "organisations", views.OrgCrumbs(&o, "Key material")...),
		views.NewKeyMaterialPage(views.NewOrgPage(h.Vocab, o, views.TabKeyMaterial), items, views.KeyMaterialForm{}, nil)))
}

// newPage is the Add key material page (form, and errs beside its fields
// after a refusal).
func (h *KeyMaterial) newPage(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, form views.KeyMaterialForm, errs map[string]string) {
	crumbs := append(views.OrgCrumbs(&o, "Key material"), views.Crumb{Label: "Add key material"})
	crumbs[len(crumbs)-2].Href = paths.OrganisationTab(o.OrganisationID, "key-material")
	Render(w, r, status, views.KeyMaterialNew(h.Shell(r, "Add key material", "organisations", crumbs...),
		views.NewKeyMaterialPage(views.NewOrgPage(h.Vocab, o, views.TabKeyMaterial), nil, form, errs)))
}

// New is GET …/key-material/new, the Add key material page.
func (h *KeyMaterial) New(w http.ResponseWriter, r *http.Request) {
	if o, ok := h.Org.loadOrg(w, r); ok {
		h.newPage(w, r, http.StatusOK, o, views.KeyMaterialForm{}, nil)
	}
}

// List is GET …/key-material.
func (h *KeyMaterial) List(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	PageOrList(w, r, func() { h.page(w, r, o) },
		func(ctx context.Context) ([]store.KeyMaterial, error) { return h.Keys.List(ctx, o.OrganisationID) })
}

// Create is POST …/key-material: a public JWK, or a PEM public key or
// certificate (the console's one Key field holds either).
func (h *KeyMaterial) Create(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	var in directory.KeyMaterialSent
	var form views.KeyMaterialForm
	isAPI, derr := DecodeAs(w, r, &in, &form)
	refused := FormRefusal(r, derr) // shown beside the fields with the layer's
	if derr != nil && refused == nil {
		WriteError(w, r, derr)
		return
	}
	if !isAPI {
		in = form.Sent()
	}
	k, err := h.Keys.Create(r.Context(), h.actor(r), o.OrganisationID, in, refused)
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "Key material " + k.Kid + " " + views.SaveWord(true) + ".", Page: paths.KeyMaterial(o.OrganisationID, k.KeyMaterialID),
			Status: http.StatusCreated, Body: k, ETag: k, Location: paths.API(paths.KeyMaterial(o.OrganisationID, k.KeyMaterialID))})
	case shownInPage(r, err):
		if errors.Is(err, directory.ErrHoldsPrivateKey) {
			form.Key = "" // a private key is not shown back
		}
		h.newPage(w, r, AsError(err).Status, o, form, orMessage(err, "PublicJwk"))
	default:
		WriteError(w, r, err)
	}
}

// Get is one item of key material (its page in the browser).
func (h *KeyMaterial) Get(w http.ResponseWriter, r *http.Request) {
	o, k, ok := orgAndItem(h.Org, w, r, h.Keys.Get, "kmID", "Key material")
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
	p.OrgPage, p.Attachments, p.Reasons = views.NewOrgPage(h.Vocab, o, views.TabKeyMaterial), atts, orgkeys.RevokeReasons
	Render(w, r, status, views.KeyMaterialItem(h.Shell(r, "Key material", "organisations", views.OrgCrumbs(&o, "Key "+p.Item.Kid)...), p))
}

// Update is PUT …/key-material/{id}: description and use, or revoke with
// Status "Revoked" and a RevokeReason (irreversible). A member left out
// keeps its value.
func (h *KeyMaterial) Update(w http.ResponseWriter, r *http.Request) {
	o, cur, ok := orgAndItem(h.Org, w, r, h.Keys.Get, "kmID", "Key material")
	if !ok {
		return
	}
	in := directory.KeyMaterialSent{Use: cur.Use, Description: cur.Description, Status: cur.Status}
	// A Description sent back as read does not stop the update though
	// saved before the text rule, a revocation above all (docs/design.md
	// §4); what is still refused goes beside its field in the console.
	refused, ok := decodeKept(w, r, &in, func() map[string]directory.StoredText {
		return map[string]directory.StoredText{"Description": {Sent: &in.Description, Stored: cur.Description}}
	})
	if !ok {
		return
	}
	k, err := h.Keys.Update(r.Context(), h.actor(r), cur, in, refused, func(c store.KeyMaterial) error { return CheckIfMatch(r, c) })
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "Key material " + k.Kid + " " + views.SaveWord(false) + " (" + k.Status + ").",
			Page: paths.KeyMaterial(o.OrganisationID, k.KeyMaterialID), Status: http.StatusOK, Body: k, ETag: k})
	case shownInPage(r, err) && in.Status == "Revoked" && cur.Status == "Active":
		// A refused revocation: its own step again, the reason beside it.
		msg := FieldMap(err)["RevokeReason"]
		if msg == "" {
			msg = AsError(err).Message
		}
		h.revokePage(w, r, AsError(err).Status, o, cur, in.RevokeReason, msg)
	case shownInPage(r, err):
		h.itemPage(w, r, AsError(err).Status, o, views.RefusedKeyEdit(cur, in, FieldMap(err), AsError(err).Message))
	default:
		WriteError(w, r, err)
	}
}

// RevokeConfirm is the confirmation step of a key's revocation (GET
// …/key-material/{kmID}/revoke), the same as a certificate's (issue 40).
func (h *KeyMaterial) RevokeConfirm(w http.ResponseWriter, r *http.Request) {
	o, k, ok := orgAndItem(h.Org, w, r, h.Keys.Get, "kmID", "Key material")
	if !ok {
		return
	}
	if k.Status != "Active" {
		h.Flash.Put(r.Context(), "Key "+k.Kid+" is "+k.Status+" already.")
		http.Redirect(w, r, paths.KeyMaterial(o.OrganisationID, k.KeyMaterialID), http.StatusSeeOther)
		return
	}
	h.revokePage(w, r, http.StatusOK, o, k, "", "")
}

// revokePage is the revocation step of k with reason chosen, and errMsg
// beside it when it was refused.
func (h *KeyMaterial) revokePage(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, k store.KeyMaterial, reason, errMsg string) {
	crumbs := views.OrgCrumbs(&o, "Key material")
	crumbs[len(crumbs)-1].Href = paths.OrganisationTab(o.OrganisationID, "key-material")
	crumbs = append(crumbs, views.Crumb{Label: "Key " + k.Kid, Href: paths.KeyMaterial(o.OrganisationID, k.KeyMaterialID)}, views.Crumb{Label: "Revoke"})
	Render(w, r, status, views.RevokeKeyMaterial(h.Shell(r, "Revoke key", "organisations", crumbs...),
		views.NewOrgPage(h.Vocab, o, views.TabKeyMaterial), k, orgkeys.RevokeReasons, reason, errMsg))
}
