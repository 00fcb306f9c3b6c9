package handlers

import (
	"net/http"
	"reflect"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// TrustMarkTypes serves Reference Data > Trust mark types (docs/design.md
// §17): Super Users write them, every administrator reads them on the API.
type TrustMarkTypes struct {
	*Base
	Types *directory.TrustMarkTypes
	// What the form offers, read through their own use cases: the
	// domains' roles and the certification types.
	Domains            *directory.Domains
	CertificationTypes *directory.References
}

func (h *TrustMarkTypes) shell(r *http.Request, title string, last ...views.Crumb) views.Shell {
	return h.referenceShell(r, title, "Trust mark types", paths.TrustMarkTypes(), last...)
}

// List lists the trust mark types.
func (h *TrustMarkTypes) List(w http.ResponseWriter, r *http.Request) {
	PageOrList(w, r, func() {
		types, err := h.Types.List(r.Context())
		if err != nil {
			WriteError(w, r, err)
			return
		}
		Render(w, r, http.StatusOK, views.TrustMarkTypes(h.shell(r, "Trust mark types"), views.TrustMarkTypesPage{Types: types}))
	}, h.Types.List)
}

// Get is one trust mark type; its page lists the entities entitled now.
func (h *TrustMarkTypes) Get(w http.ResponseWriter, r *http.Request) {
	id := PathParam(r, "typeID")
	if HTMLPage(w, r, func() {
		t, entitled, err := h.Types.Entitled(r.Context(), id)
		if err != nil {
			WriteError(w, r, err)
			return
		}
		Render(w, r, http.StatusOK, views.TrustMarkTypeView(h.shell(r, t.Name, views.Crumb{Label: t.Name}), views.TrustMarkTypePage{Type: t, Entitled: entitled}))
	}) {
		return
	}
	t, err := h.Types.Get(r.Context(), id)
	writeTagged(w, r, t, err)
}

// New is the form that adds a trust mark type.
func (h *TrustMarkTypes) New(w http.ResponseWriter, r *http.Request) {
	h.form(w, r, http.StatusOK, store.TrustMarkType{}, true, nil)
}

// Edit is the form that changes a trust mark type.
func (h *TrustMarkTypes) Edit(w http.ResponseWriter, r *http.Request) {
	t, err := h.Types.Get(r.Context(), PathParam(r, "typeID"))
	if err != nil {
		WriteError(w, r, err)
		return
	}
	h.form(w, r, http.StatusOK, t, false, nil)
}

// form renders the page that adds (isNew) or edits t, with errs beside
// its fields and the choices of Reference Data.
func (h *TrustMarkTypes) form(w http.ResponseWriter, r *http.Request, status int, t store.TrustMarkType, isNew bool, errs map[string]string) {
	domains, err := h.Domains.Overview(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	certTypes, err := h.CertificationTypes.List(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	f := views.NewTrustMarkTypeForm(t, isNew, errs, domains.Roles, certTypes)
	title := "Add trust mark type"
	if !f.IsNew {
		title = "Edit " + f.Type.Name
	}
	Render(w, r, status, views.TrustMarkTypeFormPage(h.shell(r, title, views.Crumb{Label: title}), f))
}

// chosenBasis reads the console form's choices into t: the one list of
// domain roles (DomainRole, "Payments/PISP") and, as the form offers both
// lists whatever the basis, only the choice of the basis chosen. The API
// names AuthorisationDomain, Role and CertificationType itself.
func chosenBasis(r *http.Request, t *store.TrustMarkType, refused map[string]string) map[string]string {
	if WantsJSON(r) {
		return refused
	}
	var pick struct {
		DomainRole string `json:"DomainRole"`
	}
	if err := formInto(r.PostForm, &pick); err == nil && pick.DomainRole != "" {
		if m := FormRefusal(r, checkText(reflect.ValueOf(&pick), "")); m != nil {
			refused = directory.Fields(m).Merge(refused)
		} else {
			t.AuthorisationDomain, t.Role, _ = strings.Cut(pick.DomainRole, "/")
		}
	}
	switch t.Basis {
	case directory.TrustMarkBasisRole:
		t.CertificationType = ""
	case directory.TrustMarkBasisCertification:
		t.AuthorisationDomain, t.Role = "", ""
	}
	return refused
}

// Create adds a trust mark type.
func (h *TrustMarkTypes) Create(w http.ResponseWriter, r *http.Request) {
	var in store.TrustMarkType
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	refused = chosenBasis(r, &in, refused)
	t, err := h.Types.Create(r.Context(), h.actor(r), in, refused)
	h.saved(w, r, in, t, err, true)
}

// Update replaces a trust mark type's fields (its URL cannot change).
func (h *TrustMarkTypes) Update(w http.ResponseWriter, r *http.Request) {
	id := PathParam(r, "typeID")
	var in store.TrustMarkType
	refused, ok := decodeKept(w, r, &in, storedOf(&in, func() (store.TrustMarkType, error) { return h.Types.Get(r.Context(), id) }))
	if !ok {
		return
	}
	refused = chosenBasis(r, &in, refused)
	t, err := h.Types.Update(r.Context(), h.actor(r), id, in, refused, func(cur store.TrustMarkType) error { return CheckIfMatch(r, cur) })
	in.ID = id
	h.saved(w, r, in, t, err, false)
}

// saved answers a create or update: the saved type, the form again with
// the refusal beside its fields, or an error.
func (h *TrustMarkTypes) saved(w http.ResponseWriter, r *http.Request, in, t store.TrustMarkType, err error, isNew bool) {
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "Trust mark type " + t.Name + " " + views.SaveWord(isNew) + ".", Page: paths.TrustMarkType(t.ID),
			Status: http.StatusOK, Body: t, ETag: t}.Created(isNew, paths.API(paths.TrustMarkType(t.ID))))
	case inForm(r, err):
		if !isNew {
			// The URL shown is the stored one: it cannot change.
			if cur, gerr := h.Types.Get(r.Context(), in.ID); gerr == nil {
				in.TrustMarkType = cur.TrustMarkType
			}
		}
		h.form(w, r, AsError(err).Status, in, isNew, orMessage(err, "Name"))
	default:
		WriteError(w, r, err)
	}
}
