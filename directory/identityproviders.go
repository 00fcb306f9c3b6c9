package directory

import (
	"context"
	"crypto/subtle"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Role is what a signed-in e-mail may do.
type Role string

// Roles. RoleNone is anyone who is not an administrator.
const (
	RoleNone      Role = ""
	RoleSuperUser Role = "SuperUser"
	RoleDataAdmin Role = "DataAdministrator"
)

// IdentityProvider is an OpenID Provider bound to the directory: the API
// accepts its access tokens (signature checked against JwksUri, audience
// Audience or the service's API audience, the person's e-mail in
// EmailClaim) while it is Active.
type IdentityProvider struct {
	Name        string `json:"Name"`
	Issuer      string `json:"Issuer"`
	JwksURI     string `json:"JwksUri,omitempty"`
	Audience    string `json:"Audience"`
	EmailClaim  string `json:"EmailClaim"`
	Description string `json:"Description"`
	Status      string `json:"Status"`
	// ClientID is this service's OAuth client at the provider: set, the
	// provider is offered for web sign-in too.
	// EmailDomains are the domains whose e-mails the provider may vouch
	// for; ["*"] is any.
	EmailDomains    []string `json:"EmailDomains"`
	ClientID        string   `json:"ClientId"`
	HasClientSecret bool     `json:"HasClientSecret"`
	// SealedSecret is the client secret sealed with the KEK; never shown.
	// On update nil keeps the current one.
	SealedSecret []byte `json:"-"`
	// GroupsClaim names the claim of its tokens that lists the person's
	// groups; GroupRoles makes members of a group administrators
	// (docs/design.md §16).
	GroupsClaim string      `json:"GroupsClaim"`
	GroupRoles  []GroupRole `json:"GroupRoles"`
	CreatedOn   time.Time   `json:"CreatedOn"`
	UpdatedOn   time.Time   `json:"UpdatedOn"`
}

// GroupRole maps a group of an identity provider to an administrator role
// (Role is DataAdministrator, SuperUser, or OrganisationAdministrator:<id>
// for the administrators of one organisation, docs/design.md §19).
type GroupRole struct {
	Group string `json:"Group"`
	Role  Role   `json:"Role"`
}

// orgAdminRolePrefix begins a group mapping's role that makes the group's
// members administrators of one organisation.
const orgAdminRolePrefix = string(RoleOrgAdmin) + ":"

// OrgAdminRole is the group mapping's role of the administrators of
// organisation orgID.
func OrgAdminRole(orgID string) Role { return Role(orgAdminRolePrefix + orgID) }

// Organisation is the organisation a group mapping's role
// OrganisationAdministrator:<id> names (trimmed), and whether it is one.
func (r Role) Organisation() (string, bool) {
	id, ok := strings.CutPrefix(string(r), orgAdminRolePrefix)
	return strings.TrimSpace(id), ok
}

// Limits of a binding's group mappings (docs/design.md §16).
const (
	maxGroupRoles = 100
	maxGroupName  = 256
)

var (
	claimName  = regexp.MustCompile(`^[A-Za-z0-9_.:/-]{1,100}$`)
	domainPart = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$`)
)

// Validate is what a provider must be without the network or the
// database; ownIssuer is the service's sign-in issuer, whose tokens are
// accepted already. It trims what is typed around the name, issuer and
// client ID, fills the default claims and puts the e-mail domains in one
// list of lower-case names.
func (p *IdentityProvider) Validate(isNew bool, ownIssuer string) Fields {
	f := Fields{}
	p.Name, p.Issuer = strings.TrimSpace(p.Name), strings.TrimSpace(p.Issuer)
	// The most telling message wins: an invisible character first.
	switch {
	case RefusedText(p.Name, TextLine):
		f.Add("Name", TextMessage("Name", TextLine, p.Name))
	case DotSegment(p.Name):
		f.Add("Name", DotSegmentMessage("Name"))
	case strings.ContainsAny(p.Name, "/?#"):
		f.Add("Name", "Name cannot contain /, ? or #.")
	}
	f.MaxLen("Name", p.Name, 100)
	f.Required("Name", p.Name, "Name")
	if p.Issuer != "" && ownIssuer != "" && strings.TrimRight(p.Issuer, "/") == strings.TrimRight(ownIssuer, "/") {
		f.Add("Issuer", "This is the sign-in issuer of this service; its tokens are accepted already.")
	}
	f.MaxLen("Issuer", p.Issuer, 500)
	f.Required("Issuer", p.Issuer, "Issuer")
	f.MaxLen("Audience", p.Audience, 200)
	if p.EmailClaim == "" {
		p.EmailClaim = "email"
	}
	if !claimName.MatchString(p.EmailClaim) {
		f.Add("EmailClaim", "The e-mail claim must be a claim name: letters, digits and _ . : / - (at most 100).")
	}
	f.MaxLen("Description", p.Description, 500)
	f.Status(&p.Status, isNew)
	p.ClientID = strings.TrimSpace(p.ClientID)
	f.MaxLen("ClientId", p.ClientID, 200)
	p.validateGroups(f)
	p.EmailDomains = normalDomains(p.EmailDomains)
	switch {
	case len(p.EmailDomains) == 0:
		f.Add("EmailDomains", "E-mail domains are required: the domains whose e-mails this provider may vouch for, or * for any.")
	case len(p.EmailDomains) > 50:
		f.Add("EmailDomains", "At most 50 domains.")
	case slices.Contains(p.EmailDomains, "*") && len(p.EmailDomains) > 1:
		f.Add("EmailDomains", "* (any domain) stands alone.")
	default:
		for _, d := range p.EmailDomains {
			if d != "*" && !domainPart.MatchString(d) {
				f.Add("EmailDomains", d+" is not a domain name.")
				break
			}
		}
	}
	return f
}

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

// validateGroups checks GroupsClaim and GroupRoles; each bad mapping is
// named by its index (GroupRoles[2].Role).
func (p *IdentityProvider) validateGroups(f Fields) {
	p.GroupsClaim = strings.TrimSpace(p.GroupsClaim)
	if p.GroupsClaim == "" {
		p.GroupsClaim = "groups"
	}
	if !claimName.MatchString(p.GroupsClaim) {
		f.Add("GroupsClaim", "The groups claim must be a claim name: letters, digits and _ . : / - (at most 100).")
	}
	if p.GroupRoles == nil {
		p.GroupRoles = []GroupRole{}
	}
	if len(p.GroupRoles) > maxGroupRoles {
		f.Add("GroupRoles", "At most "+strconv.Itoa(maxGroupRoles)+" group mappings.")
		return
	}
	seen := map[string]int{}
	for i, g := range p.GroupRoles {
		at := "GroupRoles[" + strconv.Itoa(i) + "]"
		g.Group = strings.TrimSpace(g.Group)
		p.GroupRoles[i].Group = g.Group
		switch {
		case g.Group == "":
			f.Add(at+".Group", "Group is required.")
		case len([]rune(g.Group)) > maxGroupName:
			f.Add(at+".Group", "A group name has at most "+strconv.Itoa(maxGroupName)+" characters.")
		case RefusedText(g.Group, TextLine): // the console's text area is read line by line, after Decode
			f.Add(at+".Group", "A group name cannot hold control characters or direction marks.")
		default:
			if j, dup := seen[g.Group]; dup {
				f.Add(at+".Group", "Group "+g.Group+" is mapped already (GroupRoles["+strconv.Itoa(j)+"]); a group maps to one role.")
			}
			seen[g.Group] = i
		}
		if org, ok := g.Role.Organisation(); ok {
			p.GroupRoles[i].Role = OrgAdminRole(org) // trimmed
		}
		switch org, isOrg := g.Role.Organisation(); {
		case g.Role == "":
			f.Add(at+".Role", "Role is required: DataAdministrator, SuperUser or OrganisationAdministrator:<OrganisationId>.")
		case isOrg && org == "":
			f.Add(at+".Role", "OrganisationAdministrator names its organisation: OrganisationAdministrator:<OrganisationId>.")
		case !isOrg && g.Role != RoleDataAdmin && g.Role != RoleSuperUser:
			f.Add(at+".Role", "Role must be DataAdministrator or SuperUser, or OrganisationAdministrator:<OrganisationId> for one organisation.")
		}
	}
}

// GroupRolesOf reads the console's text of group mappings, one
// "group = Role" a line, from each of texts. A line that does not read so
// keeps its text as the group and an empty role, so that Validate names
// it; blank lines are skipped.
func GroupRolesOf(texts []string) []GroupRole {
	out := []GroupRole{}
	for _, v := range texts {
		for _, line := range strings.Split(v, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			g, role, _ := strings.Cut(line, "=")
			out = append(out, GroupRole{Group: strings.TrimSpace(g), Role: Role(strings.TrimSpace(role))})
		}
	}
	return out
}

// ProviderChecker checks an OpenID Provider's issuer and finds its keys
// (issuer.Validator).
type ProviderChecker interface {
	CheckProvider(ctx context.Context, issuerURL string) (jwksURI string, problems []string)
}

// IdentityProviderStore is what the identity provider use cases need of
// the database. A write gets the problems already found: the store adds an
// issuer another provider has and refuses them all at once. An update
// revokes in its transaction what the provider's groups made and the new
// binding no longer backs.
type IdentityProviderStore interface {
	ListIdentityProviders(ctx context.Context) ([]IdentityProvider, error)
	// GetOrganisation finds the organisation a group mapping names.
	GetOrganisation(ctx context.Context, id string) (Organisation, error)
	GetIdentityProvider(ctx context.Context, name string) (IdentityProvider, error)
	CreateIdentityProvider(ctx context.Context, a Actor, p IdentityProvider, problems Fields) (IdentityProvider, error)
	UpdateIdentityProvider(ctx context.Context, a Actor, p IdentityProvider, problems Fields, check Check[IdentityProvider]) (IdentityProvider, error)
}

// IdentityProviders are the use cases of the identity providers bound to
// the directory (docs/design.md §5, §16).
type IdentityProviders struct {
	Store   IdentityProviderStore
	Issuers ProviderChecker
	// OwnIssuer is the sign-in issuer; its tokens are always accepted, so
	// binding it again is refused.
	OwnIssuer string
	// SealSecret encrypts a client secret at rest (the KEK).
	SealSecret func(name string, secret []byte) []byte
	// OpenSecret opens a sealed client secret: an update that sends the
	// one kept again changes nothing.
	OpenSecret func(name string, sealed []byte) ([]byte, error)
}

// Binding is a write of an identity provider as sent: the provider, its
// write-only client secret (empty keeps the current one; an empty ClientId
// removes both), and for the console's form the answers it asks for.
type Binding struct {
	Provider     IdentityProvider
	ClientSecret string
	// Console is a write from the console's form, where a group newly
	// mapped to SuperUser waits for ConfirmSuperUser, and a form refused
	// with a typed secret is sent again with SecretAgain (the secret is
	// never shown back).
	Console          bool
	ConfirmSuperUser bool
	SecretAgain      bool
}

// List is every identity provider by name.
func (s *IdentityProviders) List(ctx context.Context) ([]IdentityProvider, error) {
	return s.Store.ListIdentityProviders(ctx)
}

// Get is one identity provider.
func (s *IdentityProviders) Get(ctx context.Context, name string) (IdentityProvider, error) {
	p, err := s.Store.GetIdentityProvider(ctx, name)
	return p, Named(err, "Identity provider")
}

// Create binds a new identity provider. Its issuer is checked against its
// discovery document once every other field passes; refused are problems
// the caller found reading the input.
func (s *IdentityProviders) Create(ctx context.Context, a Actor, b Binding, refused Fields) (IdentityProvider, error) {
	p := b.Provider
	problems := p.Validate(true, s.OwnIssuer).Merge(refused)
	if err := s.mappedOrganisations(ctx, problems, p); err != nil {
		return p, err
	}
	s.secret(problems, &p, b.ClientSecret)
	b.confirm(problems, p, nil)
	b.secretAgain(problems, p, false)
	if len(problems) == 0 {
		if err := s.checkIssuer(ctx, &p); err != nil {
			return p, err
		}
	}
	saved, err := s.Store.CreateIdentityProvider(ctx, a, p, problems)
	return saved, Named(err, "Identity provider")
}

// Update replaces the writable fields of the provider name when check
// passes on the stored one; the issuer is checked again when it changes.
func (s *IdentityProviders) Update(ctx context.Context, a Actor, name string, b Binding, refused Fields, check Check[IdentityProvider]) (IdentityProvider, error) {
	cur, err := s.Get(ctx, name)
	if err != nil {
		return cur, err
	}
	p := b.Provider
	if p.Name != "" && p.Name != name {
		return p, Fields{"Name": "Name cannot change; add a new identity provider instead."}.Err()
	}
	p.Name = name
	problems := p.Validate(false, s.OwnIssuer).Merge(refused)
	if err := s.mappedOrganisations(ctx, problems, p); err != nil {
		return p, err
	}
	s.secret(problems, &p, b.ClientSecret)
	if b.ClientSecret != "" && p.ClientID != "" && cur.HasClientSecret && s.OpenSecret != nil {
		// The secret kept, sent again: no change (docs/design.md §4).
		if plain, err := s.OpenSecret(name, cur.SealedSecret); err == nil && subtle.ConstantTimeCompare(plain, []byte(b.ClientSecret)) == 1 {
			p.SealedSecret = nil
		}
	}
	b.confirm(problems, p, cur.GroupRoles)
	b.secretAgain(problems, p, cur.HasClientSecret)
	p.JwksURI = cur.JwksURI
	if len(problems) == 0 && p.Issuer != cur.Issuer {
		if err := s.checkIssuer(ctx, &p); err != nil {
			return p, err
		}
	}
	saved, err := s.Store.UpdateIdentityProvider(ctx, a, p, problems, check)
	return saved, Named(err, "Identity provider")
}

// mappedOrganisations refuses a group mapping to the administrators of an
// organisation that does not exist, on the mapping's Role.
func (s *IdentityProviders) mappedOrganisations(ctx context.Context, f Fields, p IdentityProvider) error {
	for i, g := range p.GroupRoles {
		at := "GroupRoles[" + strconv.Itoa(i) + "].Role"
		org, ok := g.Role.Organisation()
		if !ok || org == "" || f[at] != "" {
			continue
		}
		_, err := s.Store.GetOrganisation(ctx, org)
		switch {
		case errors.Is(err, ErrNotFound):
			f.Add(at, "There is no organisation "+org+".")
		case err != nil:
			return err
		}
	}
	return nil
}

// secret checks the write-only client secret and seals it into p.
func (s *IdentityProviders) secret(f Fields, p *IdentityProvider, secret string) {
	switch {
	case p.ClientID == "" && secret != "":
		f.Add("ClientSecret", "A client secret needs a client ID.")
	case p.ClientID == "":
		p.SealedSecret = []byte{} // no web sign-in: forget the secret
	case secret != "" && s.SealSecret != nil:
		p.SealedSecret = s.SealSecret(p.Name, []byte(secret))
	}
	f.MaxLen("ClientSecret", secret, 500)
}

// checkIssuer fetches the issuer's discovery document and fills JwksURI;
// each problem found is its own entry on Issuer.
func (s *IdentityProviders) checkIssuer(ctx context.Context, p *IdentityProvider) error {
	jwks, problems := s.Issuers.CheckProvider(ctx, p.Issuer)
	if len(problems) > 0 {
		e := &Error{Code: CodeInvalid, Message: "Some fields need attention."}
		for _, m := range problems {
			e.More = append(e.More, Problem{Field: "Issuer", Code: FieldInvalidIssuer, Message: m})
		}
		return e
	}
	p.JwksURI = jwks
	return nil
}

// confirm: in the console, a group newly mapped to SuperUser is saved only
// once the person ticks ConfirmSuperUser: every member of that group
// becomes a Super User (docs/design.md §16).
func (b Binding) confirm(f Fields, p IdentityProvider, before []GroupRole) {
	if !b.Console || b.ConfirmSuperUser {
		return
	}
	var added []string
	for _, g := range p.GroupRoles {
		if g.Role == RoleSuperUser && g.Group != "" && !slices.Contains(before, g) {
			added = append(added, g.Group)
		}
	}
	if len(added) > 0 {
		f.Add("ConfirmSuperUser", "Every member of "+strings.Join(added, ", ")+" at "+p.Name+
			" will be a Super User, with all rights over the directory and its administrators. Tick to confirm.")
	}
}

// secretAgain: in the console, a form sent again after its typed secret
// was asked for again, with the secret still empty, is refused once more,
// so that a provider is not saved without the secret that was typed (or,
// on an edit, with the old one) by mistake; the next save goes on
// without it.
func (b Binding) secretAgain(f Fields, p IdentityProvider, hasCurrent bool) {
	if !b.Console || !b.SecretAgain || b.ClientSecret != "" || p.ClientID == "" || f["ClientSecret"] != "" {
		return
	}
	without := "save again to go on without one"
	if hasCurrent {
		without = "save again to keep the current one"
	}
	f.Add("ClientSecret", "The client secret typed before was not kept: type it again, or "+without+".")
}
