package handlers

import (
	"context"
	"crypto/subtle"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

type identityProviderStore interface {
	ListIdentityProviders(ctx context.Context) ([]store.IdentityProvider, error)
	GetIdentityProvider(ctx context.Context, name string) (store.IdentityProvider, error)
	CreateIdentityProvider(ctx context.Context, a store.Audit, p store.IdentityProvider) (store.IdentityProvider, error)
	UpdateIdentityProvider(ctx context.Context, a store.Audit, p store.IdentityProvider, check func(store.IdentityProvider) error) (store.IdentityProvider, error)
}

// ProviderChecker checks an OpenID Provider's issuer and finds its keys
// (issuer.Validator).
type ProviderChecker interface {
	CheckProvider(ctx context.Context, issuerURL string) (jwksURI string, problems []string)
}

// IdentityProviders serves Reference Data > Identity providers: the OpenID
// Providers bound to the directory whose access tokens the API accepts.
type IdentityProviders struct {
	*Base
	Store   identityProviderStore
	Issuers ProviderChecker
	// OwnIssuer is the sign-in issuer; its tokens are always accepted, so
	// binding it again is refused.
	OwnIssuer string
	// SealSecret encrypts a client secret at rest (the KEK).
	SealSecret func(name string, secret []byte) []byte
	// OpenSecret opens a sealed client secret: a PUT that sends the one
	// kept again changes nothing.
	OpenSecret func(name string, sealed []byte) ([]byte, error)
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

var claimName = regexp.MustCompile(`^[A-Za-z0-9_.:/-]{1,100}$`)

var domainName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$`)

// normalDomains splits, trims and lower-cases the domains as typed (a form
// sends "a.example, b.example" in one field).
func normalDomains(in []string) []string {
	var out []string
	for _, v := range in {
		for _, d := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' }) {
			d = strings.ToLower(strings.TrimPrefix(d, "@"))
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

const idpPath = "/references/identity-providers"

func (h *IdentityProviders) crumbs(last ...views.Crumb) []views.Crumb {
	c := []views.Crumb{{Label: "Reference Data", Href: "/references"}}
	if len(last) == 0 {
		return append(c, views.Crumb{Label: "Identity providers"})
	}
	return append(append(c, views.Crumb{Label: "Identity providers", Href: idpPath}), last...)
}

func (h *IdentityProviders) listPage(w http.ResponseWriter, r *http.Request, status int, form views.IdPForm) {
	ps, err := h.Store.ListIdentityProviders(r.Context())
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
	PageOrList(w, r, func() { h.listPage(w, r, http.StatusOK, views.IdPForm{EmailClaim: "email"}) }, h.Store.ListIdentityProviders)
}

// Get is one identity provider (the page: its edit form).
func (h *IdentityProviders) Get(w http.ResponseWriter, r *http.Request) {
	p, err := h.Store.GetIdentityProvider(r.Context(), PathParam(r, "name"))
	if err != nil {
		WriteError(w, r, directory.Named(err, "Identity provider"))
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

// validate checks the fields that need no network; the issuer is checked
// against its discovery document afterwards.
func (h *IdentityProviders) validate(p *store.IdentityProvider, isNew bool) map[string]string {
	f := map[string]string{}
	p.Name, p.Issuer = strings.TrimSpace(p.Name), strings.TrimSpace(p.Issuer)
	required(f, "Name", p.Name, "Name")
	checkLen(f, "Name", p.Name, 100)
	if strings.ContainsAny(p.Name, "/?#") {
		f["Name"] = "Name cannot contain /, ? or #."
	}
	if dotSegment(p.Name) {
		f["Name"] = dotSegmentMessage("Name")
	}
	if hasControl(p.Name) {
		f["Name"] = textMessage("Name", textLine, p.Name)
	}
	required(f, "Issuer", p.Issuer, "Issuer")
	checkLen(f, "Issuer", p.Issuer, 500)
	if p.Issuer != "" && h.OwnIssuer != "" && strings.TrimRight(p.Issuer, "/") == strings.TrimRight(h.OwnIssuer, "/") {
		f["Issuer"] = "This is the sign-in issuer of this service; its tokens are accepted already."
	}
	checkLen(f, "Audience", p.Audience, 200)
	if p.EmailClaim == "" {
		p.EmailClaim = "email"
	}
	if !claimName.MatchString(p.EmailClaim) {
		f["EmailClaim"] = "The e-mail claim must be a claim name: letters, digits and _ . : / - (at most 100)."
	}
	checkLen(f, "Description", p.Description, 500)
	statusIn(f, &p.Status, isNew)
	p.ClientID = strings.TrimSpace(p.ClientID)
	checkLen(f, "ClientId", p.ClientID, 200)
	validateGroups(f, p)
	p.EmailDomains = normalDomains(p.EmailDomains)
	switch {
	case len(p.EmailDomains) == 0:
		f["EmailDomains"] = "E-mail domains are required: the domains whose e-mails this provider may vouch for, or * for any."
	case len(p.EmailDomains) > 50:
		f["EmailDomains"] = "At most 50 domains."
	case slices.Contains(p.EmailDomains, "*") && len(p.EmailDomains) > 1:
		f["EmailDomains"] = "* (any domain) stands alone."
	default:
		for _, d := range p.EmailDomains {
			if d != "*" && !domainName.MatchString(d) {
				f["EmailDomains"] = d + " is not a domain name."
				break
			}
		}
	}
	return f
}

// secret checks and seals the write-only client secret into p.
func (h *IdentityProviders) secret(f map[string]string, p *store.IdentityProvider, secret string) {
	checkLen(f, "ClientSecret", secret, 500)
	switch {
	case p.ClientID == "" && secret != "":
		f["ClientSecret"] = "A client secret needs a client ID."
	case p.ClientID == "":
		p.SealedSecret = []byte{} // no web sign-in: forget the secret
	case secret != "" && h.SealSecret != nil:
		p.SealedSecret = h.SealSecret(p.Name, []byte(secret))
	}
}

// checkIssuer fetches the issuer's discovery document and fills JwksURI.
func (h *IdentityProviders) checkIssuer(ctx context.Context, p *store.IdentityProvider) error {
	jwks, problems := h.Issuers.CheckProvider(ctx, p.Issuer)
	if len(problems) > 0 {
		e := CodeValidationFailed.New("Some fields need attention.")
		for _, m := range problems {
			e.Fields = append(e.Fields, FieldError{Code: FieldInvalidIssuer, Field: "Issuer", Message: m})
		}
		return e
	}
	p.JwksURI = jwks
	return nil
}

func (in idpIn) provider() store.IdentityProvider {
	return store.IdentityProvider{Name: in.Name, Issuer: in.Issuer, Audience: in.Audience, EmailClaim: in.EmailClaim,
		Description: in.Description, Status: in.Status, ClientID: in.ClientID, EmailDomains: in.EmailDomains,
		GroupsClaim: in.GroupsClaim, GroupRoles: in.GroupRoles}
}

// Create binds a new identity provider.
func (h *IdentityProviders) Create(w http.ResponseWriter, r *http.Request) {
	var in idpIn
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	formGroups(r, &in)
	p := in.provider()
	var err error
	errs := h.validate(&p, true)
	errs = withRefused(errs, refused)
	h.secret(errs, &p, in.ClientSecret)
	confirmSuperUser(r, errs, p, nil)
	secretAgain(r, errs, p, in.ClientSecret, false)
	if len(errs) > 0 {
		err = Validation(errs)
	} else if err = h.checkIssuer(r.Context(), &p); err == nil {
		var saved store.IdentityProvider
		saved, err = h.Store.CreateIdentityProvider(r.Context(), store.Audit{Actor: PrincipalFrom(r.Context()).Email}, p)
		err = directory.Named(err, "Identity provider")
		p = saved
	}
	h.Saved(w, r, Saved{Err: err, Flash: "Identity provider " + p.Name + " was added; the API now accepts its tokens.", Page: idpPath,
		Status: http.StatusCreated, Body: p, ETag: p, Location: "/api" + idpPath + "/" + url.PathEscape(p.Name),
		Again: anyAgain(func(e *Error) {
			h.listPage(w, r, e.Status, askSecretAgain(r, idpForm(in.provider(), fieldMessages(err, "Name")), in.ClientSecret))
		})})
}

// Update replaces an identity provider's writable fields; the issuer is
// checked again when it changes.
func (h *IdentityProviders) Update(w http.ResponseWriter, r *http.Request) {
	var in idpIn
	name := PathParam(r, "name")
	refused, ok := decodeKept(w, r, &in, storedOf(&in, func() (store.IdentityProvider, error) { return h.Store.GetIdentityProvider(r.Context(), name) }))
	if !ok {
		return
	}
	cur, err := h.Store.GetIdentityProvider(r.Context(), name)
	if err != nil {
		WriteError(w, r, directory.Named(err, "Identity provider"))
		return
	}
	if in.Name != "" && in.Name != name {
		WriteError(w, r, Validation(map[string]string{"Name": "Name cannot change; add a new identity provider instead."}))
		return
	}
	in.Name = name
	formGroups(r, &in)
	p := in.provider()
	errs := h.validate(&p, false)
	errs = withRefused(errs, refused)
	h.secret(errs, &p, in.ClientSecret)
	if in.ClientSecret != "" && p.ClientID != "" && cur.HasClientSecret && h.OpenSecret != nil {
		// The secret kept, sent again: no change (docs/design.md §4).
		if plain, err := h.OpenSecret(name, cur.SealedSecret); err == nil && subtle.ConstantTimeCompare(plain, []byte(in.ClientSecret)) == 1 {
			p.SealedSecret = nil
		}
	}
	confirmSuperUser(r, errs, p, cur.GroupRoles)
	secretAgain(r, errs, p, in.ClientSecret, cur.HasClientSecret)
	if len(errs) > 0 {
		err = Validation(errs)
	} else if p.Issuer != cur.Issuer {
		err = h.checkIssuer(r.Context(), &p)
	} else {
		p.JwksURI = cur.JwksURI
	}
	if err == nil {
		var saved store.IdentityProvider
		saved, err = h.Store.UpdateIdentityProvider(r.Context(), store.Audit{Actor: PrincipalFrom(r.Context()).Email}, p,
			func(c store.IdentityProvider) error { return CheckIfMatch(r, c) })
		err = directory.Named(err, "Identity provider")
		p = saved
	}
	msg := "Identity provider " + p.Name + " was saved."
	if p.Status == "Inactive" {
		msg = "Identity provider " + p.Name + " is Inactive; the API no longer accepts its tokens."
	}
	h.Saved(w, r, Saved{Err: err, Flash: msg, Page: idpPath, Status: http.StatusOK, Body: p, ETag: p,
		Again: anyAgain(func(e *Error) {
			f := idpForm(in.provider(), fieldMessages(err, "Issuer"))
			f.JwksURI, f.HasClientSecret = cur.JwksURI, cur.HasClientSecret
			h.editPage(w, r, e.Status, askSecretAgain(r, f, in.ClientSecret))
		})})
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

// Limits of a binding's group mappings (docs/design.md §16).
const (
	maxGroupRoles = 100
	maxGroupName  = 256
)

// validateGroups checks GroupsClaim and GroupRoles; each bad mapping is
// named by its index (GroupRoles[2].Role).
func validateGroups(f map[string]string, p *store.IdentityProvider) {
	p.GroupsClaim = strings.TrimSpace(p.GroupsClaim)
	if p.GroupsClaim == "" {
		p.GroupsClaim = "groups"
	}
	if !claimName.MatchString(p.GroupsClaim) {
		f["GroupsClaim"] = "The groups claim must be a claim name: letters, digits and _ . : / - (at most 100)."
	}
	if p.GroupRoles == nil {
		p.GroupRoles = []store.GroupRole{}
	}
	if len(p.GroupRoles) > maxGroupRoles {
		f["GroupRoles"] = "At most " + itoa(maxGroupRoles) + " group mappings."
		return
	}
	seen := map[string]int{}
	for i, g := range p.GroupRoles {
		at := "GroupRoles[" + itoa(i) + "]"
		g.Group = strings.TrimSpace(g.Group)
		p.GroupRoles[i].Group = g.Group
		switch {
		case g.Group == "":
			f[at+".Group"] = "Group is required."
		case len([]rune(g.Group)) > maxGroupName:
			f[at+".Group"] = "A group name has at most " + itoa(maxGroupName) + " characters."
		case hasControl(g.Group): // the console's text area is read line by line, after Decode
			f[at+".Group"] = "A group name cannot hold control characters or direction marks."
		default:
			if j, dup := seen[g.Group]; dup {
				f[at+".Group"] = "Group " + g.Group + " is mapped already (GroupRoles[" + itoa(j) + "]); a group maps to one role."
			}
			seen[g.Group] = i
		}
		if g.Role == "" {
			f[at+".Role"] = "Role is required: DataAdministrator or SuperUser."
		} else if g.Role != store.RoleDataAdmin && g.Role != store.RoleSuperUser {
			f[at+".Role"] = "Role must be DataAdministrator or SuperUser."
		}
	}
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

// secretAgain: in the browser, a form sent again after askSecretAgain with
// the secret field still empty is refused once more, so that a provider is
// not saved without the secret that was typed (or, on an edit, with the
// old one) by mistake; the next save goes on without it.
func secretAgain(r *http.Request, f map[string]string, p store.IdentityProvider, secret string, hasCurrent bool) {
	if r.PostForm == nil || r.PostForm.Get("SecretAgain") != "1" || secret != "" || p.ClientID == "" || f["ClientSecret"] != "" {
		return
	}
	without := "save again to go on without one"
	if hasCurrent {
		without = "save again to keep the current one"
	}
	f["ClientSecret"] = "The client secret typed before was not kept: type it again, or " + without + "."
}

// confirmSuperUser: in the browser, a group newly mapped to SuperUser is
// saved only once the person ticks ConfirmSuperUser: every member of that
// group becomes a Super User (docs/design.md §16).
func confirmSuperUser(r *http.Request, f map[string]string, p store.IdentityProvider, before []store.GroupRole) {
	if r.PostForm == nil || r.PostForm.Get("ConfirmSuperUser") == "on" {
		return
	}
	var added []string
	for _, g := range p.GroupRoles {
		if g.Role == store.RoleSuperUser && !slices.Contains(before, g) {
			added = append(added, g.Group)
		}
	}
	if len(added) > 0 {
		f["ConfirmSuperUser"] = "Every member of " + strings.Join(added, ", ") + " at " + p.Name +
			" will be a Super User, with all rights over the directory and its administrators. Tick to confirm."
	}
}
