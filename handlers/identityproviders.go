package handlers

import (
	"net/http"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// IdentityProviders serves Reference Data > Identity providers: the OpenID
// Providers bound to the directory whose access tokens the API accepts.
type IdentityProviders struct {
	*Base
	Providers *directory.IdentityProviders
}

// idpIn is the writable part of an identity provider; the read-only
// members are accepted so that what GET returns can be sent back.
type idpIn struct {
	Name         string   `json:"Name"`
	Issuer       string   `json:"Issuer"`
	Audience     string   `json:"Audience"`
	EmailClaim   string   `json:"EmailClaim"`
	Description  string   `json:"Description"`
	Status       string   `json:"Status"`
	EmailDomains []string `json:"EmailDomains"`
	ClientID     string   `json:"ClientId"`
	// ClientSecret is write-only: empty keeps the current one; an empty
	// ClientId removes both.
	ClientSecret    string            `json:"ClientSecret" text:"raw"`
	GroupsClaim     string            `json:"GroupsClaim"`
	GroupRoles      []store.GroupRole `json:"GroupRoles"`
	JwksURI         any               `json:"JwksUri"`
	HasClientSecret any               `json:"HasClientSecret"`
	CreatedOn       any               `json:"CreatedOn"`
	UpdatedOn       any               `json:"UpdatedOn"`
}

// bind is the write as sent. The console's form (what has a PostForm; the
// API's JSON has none) also gives its answers, and its group mappings as
// one text area of "group = Role" lines.
func (in *idpIn) bind(r *http.Request) directory.Binding {
	b := directory.Binding{ClientSecret: in.ClientSecret, Console: r.PostForm != nil}
	if b.Console {
		in.GroupRoles = directory.GroupRolesOf(r.PostForm["GroupRoles"])
		b.ConfirmSuperUser = r.PostForm.Get("ConfirmSuperUser") == "on"
		b.SecretAgain = r.PostForm.Get("SecretAgain") == "1"
	}
	b.Provider = store.IdentityProvider{Name: in.Name, Issuer: in.Issuer, Audience: in.Audience, EmailClaim: in.EmailClaim,
		Description: in.Description, Status: in.Status, ClientID: in.ClientID, EmailDomains: in.EmailDomains,
		GroupsClaim: in.GroupsClaim, GroupRoles: in.GroupRoles}
	return b
}

const idpPath = "/references/identity-providers"

func (h *IdentityProviders) listPage(w http.ResponseWriter, r *http.Request) {
	ps, err := h.Providers.List(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Render(w, r, http.StatusOK, views.IdentityProviders(h.referenceShell(r, "Identity providers", "Identity providers", idpPath), views.IdPPage{Providers: ps}))
}

func (h *IdentityProviders) newPage(w http.ResponseWriter, r *http.Request, status int, form views.IdPForm) {
	const title = "Add identity provider"
	Render(w, r, status, views.IdentityProviderNew(h.referenceShell(r, title, "Identity providers", idpPath, views.Crumb{Label: title}), form))
}

// New is the page that adds an identity provider.
func (h *IdentityProviders) New(w http.ResponseWriter, r *http.Request) {
	h.newPage(w, r, http.StatusOK, views.IdPForm{EmailClaim: "email"})
}

func (h *IdentityProviders) editPage(w http.ResponseWriter, r *http.Request, status int, form views.IdPForm) {
	Render(w, r, status, views.IdentityProviderEdit(h.referenceShell(r, form.Name, "Identity providers", idpPath, views.Crumb{Label: form.Name}), form))
}

// List lists the identity providers.
func (h *IdentityProviders) List(w http.ResponseWriter, r *http.Request) {
	PageOrList(w, r, func() { h.listPage(w, r) }, h.Providers.List)
}

// Get is one identity provider (the page: its edit form).
func (h *IdentityProviders) Get(w http.ResponseWriter, r *http.Request) {
	p, err := h.Providers.Get(r.Context(), PathParam(r, "name"))
	if err == nil && HTMLPage(w, r, func() { h.editPage(w, r, http.StatusOK, views.NewIdPForm(p, nil)) }) {
		return
	}
	writeTagged(w, r, p, err)
}
