package handlers

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Create binds a new identity provider; the browser is shown every
// refusal on the page that adds it.
func (h *IdentityProviders) Create(w http.ResponseWriter, r *http.Request) {
	var in idpIn
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	b := in.bind(r)
	p, err := h.Providers.Create(r.Context(), h.actor(r), b, refused)
	if e := AsError(err); err != nil && !WantsJSON(r) && e.Status < 500 {
		h.newPage(w, r, e.Status, views.NewIdPForm(b.Provider, fieldMessages(err, "Name")).Refused(in.ClientSecret, b.ConfirmSuperUser))
		return
	}
	h.Saved(w, r, Saved{Err: err, Flash: "Identity provider " + p.Name + " " + views.SaveWord(true) + "; the API now accepts its tokens.", Page: idpPath,
		Status: http.StatusCreated, Body: p, ETag: p, Location: "/api" + idpPath + "/" + url.PathEscape(p.Name)})
}

// Update replaces an identity provider's writable fields; the issuer is
// checked again when it changes.
func (h *IdentityProviders) Update(w http.ResponseWriter, r *http.Request) {
	var in idpIn
	name := PathParam(r, "name")
	refused, ok := decodeKept(w, r, &in, storedOf(&in, func() (store.IdentityProvider, error) { return h.Providers.Get(r.Context(), name) }))
	if !ok {
		return
	}
	b := in.bind(r)
	p, err := h.Providers.Update(r.Context(), h.actor(r), name, b, refused, func(c store.IdentityProvider) error { return CheckIfMatch(r, c) })
	if err != nil && inForm(r, err) {
		h.editRefused(w, r, name, b, err)
		return
	}
	msg := "Identity provider " + p.Name + " " + views.SaveWord(false) + "."
	if p.Status == "Inactive" {
		msg = "Identity provider " + p.Name + " is Inactive; the API no longer accepts its tokens."
	}
	h.Saved(w, r, Saved{Err: err, Flash: msg, Page: idpPath, Status: http.StatusOK, Body: p, ETag: p})
}

// editRefused shows the edit form again with what was typed (b) and the
// refusal beside its fields; the keys URI and whether a secret is kept are
// the stored provider's.
func (h *IdentityProviders) editRefused(w http.ResponseWriter, r *http.Request, name string, b directory.Binding, err error) {
	cur, gerr := h.Providers.Get(r.Context(), name)
	if gerr != nil {
		WriteError(w, r, gerr)
		return
	}
	typed := b.Provider
	typed.Name = name
	f := views.NewIdPForm(typed, fieldMessages(err, "Issuer"))
	f.JwksURI, f.HasClientSecret = cur.JwksURI, cur.HasClientSecret
	h.editPage(w, r, AsError(err).Status, f.Refused(b.ClientSecret, b.ConfirmSuperUser))
}

// fieldMessages joins the messages of each field of a validation error;
// any other error lands on field.
func fieldMessages(err error, field string) map[string]string {
	m := map[string]string{}
	for _, fe := range AsError(err).Fields {
		m[fe.Field] = joinMessages(m[fe.Field], fe.Message)
	}
	if len(m) == 0 {
		m[field] = AsError(err).Message
	}
	return m
}

// joinMessages puts a second message on one field after the first, kept
// apart: "; " after a fragment, a space after a sentence.
func joinMessages(a, b string) string {
	switch {
	case a == "":
		return b
	case strings.HasSuffix(a, "."):
		return a + " " + b
	}
	return a + "; " + b
}
