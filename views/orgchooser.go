package views

import (
	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
)

// OrgChoice is one organisation on the start page of an Organisation
// Administrator who has several.
type OrgChoice struct {
	Name, Status    string
	Href, AuditHref string
}

// OrgChoices are the organisations orgs to choose from, each with its
// status in the deployment's words.
func OrgChoices(vocab lifecycle.Vocabulary, orgs []store.Organisation) []OrgChoice {
	out := make([]OrgChoice, 0, len(orgs))
	for _, o := range orgs {
		out = append(out, OrgChoice{Name: o.OrganisationName, Status: vocab.Display(o.Status),
			Href: paths.Organisation(o.OrganisationID), AuditHref: paths.OrganisationAudit(o.OrganisationID)})
	}
	return out
}

// OrgOptions are orgs to choose one of, cur chosen.
func OrgOptions(orgs []store.Organisation, cur string) []Option {
	out := make([]Option, 0, len(orgs))
	for _, o := range orgs {
		out = append(out, Option{Value: o.OrganisationID, Label: o.OrganisationName, Selected: o.OrganisationID == cur})
	}
	return out
}
