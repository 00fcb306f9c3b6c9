package views

import (
	"strings"

	"github.com/trustframe/trustframe/store"
)

// NewIdPForm is the form of provider p with errs beside its fields: the
// e-mail domains comma-separated, the group mappings one a line.
func NewIdPForm(p store.IdentityProvider, errs map[string]string) IdPForm {
	var groups strings.Builder
	for _, g := range p.GroupRoles {
		groups.WriteString(g.Group + " = " + string(g.Role) + "\n")
	}
	return IdPForm{Name: p.Name, Issuer: p.Issuer, JwksURI: p.JwksURI, Audience: p.Audience, EmailClaim: p.EmailClaim,
		Description: p.Description, Status: p.Status, ClientID: p.ClientID, HasClientSecret: p.HasClientSecret,
		EmailDomains: strings.Join(p.EmailDomains, ", "), GroupsClaim: p.GroupsClaim, GroupRoles: groups.String(), Errors: errs}
}

// Refused is f shown again after a refusal. A client secret typed is not
// sent back to the browser, so its field says to type it again and the
// form carries SecretAgain; a ticked ConfirmSuperUser stays ticked.
func (f IdPForm) Refused(typedSecret string, superUserTicked bool) IdPForm {
	f.SuperUserTicked = superUserTicked
	if typedSecret == "" {
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
