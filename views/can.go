package views

import (
	"slices"

	"github.com/trustframe/trustframe/paths"
)

// Can is what the signed-in person may use in the console, built once per
// request from who they are (handlers.CanOf): a page shows the buttons
// they may use and leaves the others out, not disabled (docs/design.md
// §19). The zero value is an administrator of the whole directory.
type Can struct {
	// OrgAdmin: an Organisation Administrator, who acts in Orgs only.
	OrgAdmin bool
	Orgs     []string
}

// ManageDirectory reports whether the person may change what only the
// directory's administrators change: an organisation's record and status,
// its regulatory documents, certifications and authority claims, flags,
// an end state and a reactivation; and whether they may create, import and
// export organisations and read the whole audit log.
func (c Can) ManageDirectory() bool { return !c.OrgAdmin }

// Statuses are the statuses of opts the person may choose: all of them.
// An Organisation Administrator may set their application or server
// Active, Suspended or the end state (docs/design.md §19); leaving the end
// state is a Super User's, which the reactivation page, not these
// choices, offers.
func (c Can) Statuses(opts []Option, endWord string) []Option {
	return opts
}

// OrgsHref is where the menu's organisations lead: an Organisation
// Administrator's only organisation, or the list (of theirs only, for one
// who has several).
func (c Can) OrgsHref() string {
	if c.OrgAdmin && len(c.Orgs) == 1 {
		return paths.Organisation(c.Orgs[0])
	}
	return paths.Organisations()
}

// AuditHref is where the menu's audit log leads: the whole log, or for an
// Organisation Administrator the log of their only organisation, or the
// start page, which lists each of theirs with its log.
func (c Can) AuditHref() string {
	switch {
	case !c.OrgAdmin:
		return "/audit"
	case len(c.Orgs) == 1:
		return paths.OrganisationAudit(c.Orgs[0])
	default:
		return "/"
	}
}

// orgsLabel names the menu's organisations entry: "Organisation" for an
// Organisation Administrator of one.
func orgsLabel(c Can) string {
	if c.OrgAdmin && len(c.Orgs) == 1 {
		return "Organisation"
	}
	return "Organisations"
}

// withActions are a table's headings, and the (unnamed) column of its
// editing buttons when the person may use them.
func withActions(c Can, headings ...string) []string {
	if c.ManageDirectory() {
		return append(headings, "")
	}
	return headings
}

func anySelected(opts []Option) bool {
	return slices.ContainsFunc(opts, func(o Option) bool { return o.Selected })
}
