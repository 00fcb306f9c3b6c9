package views

import (
	"slices"
	"sort"
	"strings"

	"github.com/trustframe/trustframe/federation"
	"github.com/trustframe/trustframe/store"
)

// NewPolicyForm is the page that adds or edits p: empty, the policy, or p
// as sent when it was refused with errs (field → message); a new one is
// Active. The console has one list of
// domain roles (DomainRole), where the errors of AuthorisationDomain and
// Role are shown. roles are the domains' roles, of which the Federation
// ones are offered.
func NewPolicyForm(p store.RoleMetadataPolicy, errs map[string]string, roles []store.DomainRole) PolicyForm {
	f := PolicyForm{PolicyID: p.PolicyID, AuthorisationDomain: p.AuthorisationDomain, Role: p.Role, EntityType: p.EntityType,
		Policy: string(p.Policy), Description: p.Description, Status: p.Status, Errors: errs, EntityTypes: federation.EntityTypes}
	if f.Status == "" {
		f.Status = "Active"
	}
	domainRoleErrors(errs)
	f.RoleOpts = DomainRoleOptions(roles, p.AuthorisationDomain, p.Role, func(ro store.DomainRole) bool { return ro.Type == "Federation" })
	return f
}

// DomainRoleOptions are the choices of a form's one list of domain roles
// (value "Payments/PISP", labelled "Payments: PISP"): the roles offer
// keeps, and the chosen domain and role though offer leaves it out or it
// is no role at all (a refused choice stays shown, selected).
func DomainRoleOptions(roles []store.DomainRole, domain, role string, offer func(store.DomainRole) bool) []Option {
	var opts []Option
	found := false
	for _, ro := range roles {
		chosen := ro.AuthorisationDomain == domain && ro.Name == role
		if offer(ro) || chosen {
			opts = append(opts, Option{Value: ro.AuthorisationDomain + "/" + ro.Name, Label: ro.AuthorisationDomain + ": " + ro.Name, Selected: chosen})
		}
		found = found || chosen
	}
	if !found && (domain != "" || role != "") {
		opts = append(opts, Option{Value: domain + "/" + role, Label: domain + ": " + role, Selected: true})
	}
	return opts
}

// domainRoleErrors moves the messages of AuthorisationDomain and Role to
// the form's one list of domain roles (DomainRole), where they are shown.
func domainRoleErrors(errs map[string]string) {
	for _, field := range []string{"AuthorisationDomain", "Role"} {
		if errs[field] != "" {
			errs["DomainRole"] = strings.TrimSpace(errs["DomainRole"] + " " + errs[field])
			delete(errs, field)
		}
	}
}

// NewTryItPage is the policy simulator's form with what was sent: the
// entity type, the metadata and the roles chosen ("Domain/Role") among
// the Federation roles of roles.
func NewTryItPage(entityType, metadata string, selected []string, roles []store.DomainRole) TryItPage {
	p := TryItPage{EntityTypes: federation.EntityTypes, EntityType: entityType, Metadata: metadata, Selected: selected}
	for _, ro := range roles {
		if ro.Type == "Federation" {
			v := ro.AuthorisationDomain + "/" + ro.Name
			p.RoleOpts = append(p.RoleOpts, Option{Value: v, Label: v, Selected: slices.Contains(selected, v)})
		}
	}
	return p
}

// Refused shows a refused simulation: the messages of the form's fields
// (field → message) beside them, any other field's in the list above the
// form, and msg there when no field is named.
func (p *TryItPage) Refused(fields map[string]string, msg string) {
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		switch name {
		case "Roles", "EntityType", "Metadata":
			if p.FieldErrors == nil {
				p.FieldErrors = map[string]string{}
			}
			p.FieldErrors[name] = fields[name]
		default:
			p.Errors = append(p.Errors, name+": "+fields[name])
		}
	}
	if len(fields) == 0 {
		p.Errors = append(p.Errors, msg)
	}
}

// Simulated shows the merged policy and the metadata it yields.
func (p *TryItPage) Simulated(policy federation.Policy, metadata map[string]any) {
	p.Policy, p.Result = IndentJSON(policy), IndentJSON(metadata)
}
