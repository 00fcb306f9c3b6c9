package views

import (
	"slices"

	"github.com/trustframe/trustframe/formats"
	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
)

// NewAppForm is the application form of organisation o: a new one, or
// a's, errs beside their fields. Roles are chosen among the roles of the
// organisation's Active claims (held); a role the application carries
// without a claim any more is shown, marked.
func NewAppForm(vocab lifecycle.Vocabulary, o store.Organisation, a store.SoftwareStatement, isNew bool, errs map[string]string, flags []store.Flag, held []string) AppForm {
	if canon, ok := lifecycle.ParseStatus(lifecycle.Application, a.Status); ok {
		a.Status = canon // the select's value
	}
	modes := []Option{{Value: "", Label: "None (no CIBA)", Selected: a.BackchannelTokenDeliveryMode == ""}}
	for _, m := range formats.DeliveryModes {
		modes = append(modes, Option{Value: m, Label: m, Selected: a.BackchannelTokenDeliveryMode == m})
	}
	action := paths.OrganisationTab(o.OrganisationID, "softwarestatements")
	if !isNew {
		action += "/" + a.SoftwareStatementID
	}
	var roles []Option
	for _, ro := range held {
		roles = append(roles, Option{Value: ro, Label: ro, Selected: slices.Contains(a.Roles, ro)})
	}
	for _, ro := range StaleRoles(a.Roles, held) {
		roles = append(roles, Option{Value: ro, Label: ro + " (no Active claim)", Selected: true})
	}
	return AppForm{OrgID: o.OrganisationID, App: a, IsNew: isNew, Action: action, Errors: errs,
		StatusOpts: StatusOptions(vocab, lifecycle.Application, a.Status, false), FlagOpts: FlagOptions(flags, a.Flags, false), ModeOpts: modes, RoleOpts: roles}
}

// StaleRoles are the roles an application carries that are not among
// those the organisation holds (held): their claim is no longer Active.
func StaleRoles(roles, held []string) []string {
	var out []string
	for _, v := range roles {
		if !slices.Contains(held, v) {
			out = append(out, v)
		}
	}
	return out
}

// NewAppDetailPage is an application's page, its status in the
// deployment's words; ssaRefused says why no SSA can be signed now ("" when
// one can), orgNotActive that the reason is the organisation's status.
func NewAppDetailPage(vocab lifecycle.Vocabulary, o store.Organisation, a store.SoftwareStatement, flags []store.Flag, held []string, ssaRefused string, orgNotActive bool) AppDetailPage {
	st := a.Status
	a.Status = vocab.Display(st)
	return AppDetailPage{OrgPage: NewOrgPage(vocab, o, TabApplications), App: a, FlagNames: FlagNames(flags),
		AppStatus: NextStatuses(vocab, lifecycle.Application, st), StaleRoles: StaleRoles(a.Roles, held),
		SSARefused: ssaRefused, OrgNotActive: orgNotActive}
}

// NewServerForm is the authorisation server form of organisation o: a new
// one, or s's; Refuse puts a refusal beside its field.
func NewServerForm(vocab lifecycle.Vocabulary, o store.Organisation, s store.AuthorisationServer, isNew bool, flags []store.Flag) ServerForm {
	action := paths.OrganisationTab(o.OrganisationID, "authorisationservers")
	if !isNew {
		action += "/" + s.AuthorisationServerID
	}
	return ServerForm{OrgID: o.OrganisationID, Server: s, IsNew: isNew, Action: action, Errors: map[string]string{},
		StatusOpts: StatusOptions(vocab, lifecycle.AuthorisationServer, s.Status, false), FlagOpts: FlagOptions(flags, s.Flags, false)}
}

// Refuse shows message beside field: the issuer's problems are listed,
// each field's other refusal stands alone.
func (f *ServerForm) Refuse(field, message string) {
	switch field {
	case "Issuer":
		f.IssuerErrors = append(f.IssuerErrors, message)
	case "":
	default:
		f.Errors[field] = message
	}
}
