package handlers

import (
	"net/http"
	"net/url"
	"strings"

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

func (in idpIn) provider() store.IdentityProvider {
	return store.IdentityProvider{Name: in.Name, Issuer: in.Issuer, Audience: in.Audience, EmailClaim: in.EmailClaim,
		Description: in.Description, Status: in.Status, ClientID: in.ClientID, EmailDomains: in.EmailDomains,
		GroupsClaim: in.GroupsClaim, GroupRoles: in.GroupRoles}
}

// binding is what was sent, with the console form's answers: a form is
// what has a PostForm (the API's JSON has none).
func (in idpIn) binding(r *http.Request) directory.Binding {
	b := directory.Binding{Provider: in.provider(), ClientSecret: in.ClientSecret, Console: r.PostForm != nil}
	if b.Console {
		b.ConfirmSuperUser = r.PostForm.Get("ConfirmSuperUser") == "on"
		b.SecretAgain = r.PostForm.Get("SecretAgain") == "1"
	}
	return b
}

const idpPath = "/references/identity-providers"

func (h *IdentityProviders) actor(r *http.Request) store.Audit {
	return store.Audit{Actor: PrincipalFrom(r.Context()).Email}
}

func (h *IdentityProviders) crumbs(last ...views.Crumb) []views.Crumb {
	c := []views.Crumb{{Label: "Reference Data", Href: "/references"}}
	if len(last) == 0 {
		return append(c, views.Crumb{Label: "Identity providers"})
	}
	return append(append(c, views.Crumb{Label: "Identity providers", Href: idpPath}), last...)
}

func (h *IdentityProviders) listPage(w http.ResponseWriter, r *http.Request, status int, form views.IdPForm) {
	ps, err := h.Providers.List(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Render(w, r, status, views.IdentityProviders(h.Shell(r, "Identity providers", "reference", h.crumbs()...), views.IdPPage{Providers: ps, Form: form}))
}

func (h *IdentityProviders) editPage(w http.ResponseWriter, r *http.Request, status int, form views.IdPForm) {
	Render(w, r, status, views.IdentityProviderEdit(h.Shell(r, form.Name, "reference", h.crumbs(views.Crumb{Label: form.Name})...), form))
}

// List lists the identity providers (the page: with the New form).
func (h *IdentityProviders) List(w http.ResponseWriter, r *http.Request) {
	PageOrList(w, r, func() { h.listPage(w, r, http.StatusOK, views.IdPForm{EmailClaim: "email"}) }, h.Providers.List)
}

// Get is one identity provider (the page: its edit form).
func (h *IdentityProviders) Get(w http.ResponseWriter, r *http.Request) {
	p, err := h.Providers.Get(r.Context(), PathParam(r, "name"))
	if err != nil {
		WriteError(w, r, err)
		return
	}
	if HTMLPage(w, r, func() { h.editPage(w, r, http.StatusOK, idpForm(p, nil)) }) {
		return
	}
	SetETag(w, p)
	WriteJSON(w, http.StatusOK, p)
}

func idpForm(p store.IdentityProvider, errs map[string]string) views.IdPForm {
	return views.IdPForm{Name: p.Name, Issuer: p.Issuer, JwksURI: p.JwksURI, Audience: p.Audience, EmailClaim: p.EmailClaim,
		Description: p.Description, Status: p.Status, ClientID: p.ClientID, HasClientSecret: p.HasClientSecret,
		EmailDomains: strings.Join(p.EmailDomains, ", "), GroupsClaim: p.GroupsClaim, GroupRoles: groupLines(p.GroupRoles), Errors: errs}
}

// Create binds a new identity provider.
func (h *IdentityProviders) Create(w http.ResponseWriter, r *http.Request) {
	var in idpIn
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	formGroups(r, &in)
	p, err := h.Providers.Create(r.Context(), h.actor(r), in.binding(r), refused)
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "Identity provider " + p.Name + " was added; the API now accepts its tokens.", Page: idpPath,
			Status: http.StatusCreated, Body: p, ETag: p, Location: "/api" + idpPath + "/" + url.PathEscape(p.Name)})
	case !WantsJSON(r) && AsError(err).Status < 500:
		h.listPage(w, r, AsError(err).Status, askSecretAgain(r, idpForm(in.provider(), fieldMessages(err, "Name")), in.ClientSecret))
	default:
		WriteError(w, r, err)
	}
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
	formGroups(r, &in)
	p, err := h.Providers.Update(r.Context(), h.actor(r), name, in.binding(r), refused, func(c store.IdentityProvider) error { return CheckIfMatch(r, c) })
	switch {
	case err == nil:
		msg := "Identity provider " + p.Name + " was saved."
		if p.Status == "Inactive" {
			msg = "Identity provider " + p.Name + " is Inactive; the API no longer accepts its tokens."
		}
		h.Saved(w, r, Saved{Flash: msg, Page: idpPath, Status: http.StatusOK, Body: p, ETag: p})
	case inForm(r, err):
		h.editRefused(w, r, name, in, err)
	default:
		WriteError(w, r, err)
	}
}

// editRefused shows the edit form again with what was typed and the
// refusal beside its fields; the keys URI and whether a secret is kept are
// the stored provider's.
func (h *IdentityProviders) editRefused(w http.ResponseWriter, r *http.Request, name string, in idpIn, err error) {
	cur, gerr := h.Providers.Get(r.Context(), name)
	if gerr != nil {
		WriteError(w, r, gerr)
		return
	}
	typed := in.provider()
	typed.Name = name
	f := idpForm(typed, fieldMessages(err, "Issuer"))
	f.JwksURI, f.HasClientSecret = cur.JwksURI, cur.HasClientSecret
	h.editPage(w, r, AsError(err).Status, askSecretAgain(r, f, in.ClientSecret))
}

// fieldMessages joins the messages of each field of a validation error;
// any other error lands on field.
func fieldMessages(err error, field string) map[string]string {
	m := map[string]string{}
	for _, fe := range AsError(err).Fields {
		m[fe.Field] = strings.TrimSpace(m[fe.Field] + " " + fe.Message)
	}
	if len(m) == 0 {
		m[field] = AsError(err).Message
	}
	return m
}

// formGroups reads the form's GroupRoles text area: one "group = Role" a
// line. A line that does not read so keeps its text as the group and an
// empty role, so that validation names it.
func formGroups(r *http.Request, in *idpIn) {
	if r.PostForm == nil {
		return
	}
	in.GroupRoles = []store.GroupRole{}
	for _, v := range r.PostForm["GroupRoles"] {
		for _, line := range strings.Split(v, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			g, role, _ := strings.Cut(line, "=")
			in.GroupRoles = append(in.GroupRoles, store.GroupRole{Group: strings.TrimSpace(g), Role: store.Role(strings.TrimSpace(role))})
		}
	}
}

func groupLines(gs []store.GroupRole) string {
	var b strings.Builder
	for _, g := range gs {
		b.WriteString(g.Group + " = " + string(g.Role) + "\n")
	}
	return b.String()
}

// askSecretAgain: a refused form is shown again without the client secret
// that was typed (a secret is never sent back to the browser), so its
// field says to type it again, and the form carries SecretAgain. A ticked
// ConfirmSuperUser stays ticked.
func askSecretAgain(r *http.Request, f views.IdPForm, typed string) views.IdPForm {
	f.SuperUserTicked = r.PostForm != nil && r.PostForm.Get("ConfirmSuperUser") == "on"
	if typed == "" {
		return f
	}
	f.SecretAgain = true
	if f.Errors == nil {
		f.Errors = map[string]string{}
	}
	if f.Errors["ClientSecret"] == "" {
		f.Errors["ClientSecret"] = "Type the client secret again: it is not kept when a form is refused."
	}
	return f
}
