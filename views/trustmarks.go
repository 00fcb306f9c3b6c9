package views

import (
	"slices"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/paths"
)

// TrustMarkTypesPage is the view model of Reference Data > Trust mark
// types.
type TrustMarkTypesPage struct {
	Types []directory.TrustMarkType
}

// TrustMarkTypeForm is the form that adds or edits a trust mark type: the
// type as typed, the refusal beside each field, where it posts, and the
// choices of Reference Data: the domains' roles (one list, DomainRole, as
// the role metadata policy form has) and the certification types.
type TrustMarkTypeForm struct {
	Type         directory.TrustMarkType
	IsNew        bool
	Action       string
	Errors       map[string]string
	BasisOpts    []Option
	RoleOpts     []Option // "Payments/PISP"; the first, "", chooses none
	CertTypeOpts []Option // the first, "", chooses none
	StatusOpts   []Option
}

// NewTrustMarkTypeForm is the form of t (isNew: the New form) with errs
// beside its fields (those of AuthorisationDomain and Role beside the one
// list, DomainRole), offering the Active roles and certification types
// (and t's own choice, whatever it is: a refused one stays selected).
func NewTrustMarkTypeForm(t directory.TrustMarkType, isNew bool, errs map[string]string, roles []directory.DomainRole, certTypes []directory.ReferenceItem) TrustMarkTypeForm {
	f := TrustMarkTypeForm{Type: t, IsNew: isNew, Errors: errs, Action: paths.TrustMarkTypes()}
	if !isNew {
		f.Action = paths.TrustMarkType(t.ID)
	}
	if f.Type.Basis == "" {
		f.Type.Basis = directory.TrustMarkBasisRole
	}
	if t.AuthorisationDomain == "" && t.Role == "" && errs["AuthorisationDomain"] != "" && errs["Role"] != "" {
		// Nothing chosen in the one list: one message, not the domain's
		// and the role's "is required" side by side.
		errs["DomainRole"] = "Choose a domain and role."
		delete(errs, "AuthorisationDomain")
		delete(errs, "Role")
	}
	domainRoleErrors(errs)
	for _, b := range []string{directory.TrustMarkBasisRole, directory.TrustMarkBasisCertification} {
		f.BasisOpts = append(f.BasisOpts, Option{Value: b, Label: b, Selected: f.Type.Basis == b})
	}
	f.RoleOpts = append([]Option{{Value: "", Label: "Choose a domain and role"}},
		DomainRoleOptions(roles, t.AuthorisationDomain, t.Role, func(ro directory.DomainRole) bool { return ro.Status == "Active" })...)
	f.CertTypeOpts = append([]Option{{Value: "", Label: "Choose a certification type"}}, TypeOptions(certTypes, t.CertificationType)...)
	if t.CertificationType != "" && !slices.ContainsFunc(certTypes, func(c directory.ReferenceItem) bool { return c.Name == t.CertificationType }) {
		f.CertTypeOpts = append(f.CertTypeOpts, Option{Value: t.CertificationType, Label: t.CertificationType, Selected: true})
	}
	for _, s := range []string{"Active", "Inactive"} {
		f.StatusOpts = append(f.StatusOpts, Option{Value: s, Label: s, Selected: f.Type.Status == s || (f.Type.Status == "" && s == "Active")})
	}
	return f
}

// TrustMarkTypePage is one type's page: what it is and the entities
// entitled to it now.
type TrustMarkTypePage struct {
	Type     directory.TrustMarkType
	Entitled []directory.Entitlement
}

// TrustMarkBasis says what a type is based on, for people.
func TrustMarkBasis(t directory.TrustMarkType) string {
	if t.Basis == directory.TrustMarkBasisCertification {
		return "Certification " + t.CertificationType
	}
	return "Role " + t.Role + " of " + t.AuthorisationDomain
}

// EntitledPath is the console page of an entitled application or server.
func EntitledPath(e directory.Entitlement) string {
	if e.Kind == "AuthorisationServer" {
		return paths.Server(e.OrganisationID, e.ID)
	}
	return paths.Application(e.OrganisationID, e.ID)
}

// EntitledKind names the kind of an entitled subject.
func EntitledKind(e directory.Entitlement) string {
	if e.Kind == "AuthorisationServer" {
		return "Authorisation server"
	}
	return "Application"
}
