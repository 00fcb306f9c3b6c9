package views

import (
	"net/url"
	"strings"

	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
)

// StatusOptions are the statuses of a kind for a select, in the
// deployment's words (vocab), cur selected; withAny puts "Any status"
// first (a filter).
func StatusOptions(vocab lifecycle.Vocabulary, k lifecycle.Kind, cur string, withAny bool) []Option {
	var out []Option
	if withAny {
		out = append(out, Option{Value: "", Label: "Any status", Selected: cur == ""})
	}
	for _, s := range lifecycle.Allowed(k) {
		w := vocab.Display(s)
		out = append(out, Option{Value: w, Label: w, Selected: cur == s})
	}
	return out
}

// NextStatuses are the statuses an item of kind k may move to from cur:
// the status buttons of its page.
func NextStatuses(vocab lifecycle.Vocabulary, k lifecycle.Kind, cur string) []Option {
	var out []Option
	for _, s := range lifecycle.Allowed(k) {
		if s == cur || lifecycle.CheckTransition(cur, s, vocab) != nil {
			continue
		}
		w := vocab.Display(s)
		out = append(out, Option{Value: w, Label: w})
	}
	return out
}

// FlagOptions are the flags to choose from: the Active ones and any
// selected (a flag made Inactive stays on what carries it); withAny puts
// "Any flag" first (a filter).
func FlagOptions(flags []store.Flag, selected []string, withAny bool) []Option {
	sel := map[string]bool{}
	for _, f := range selected {
		sel[f] = true
	}
	var out []Option
	if withAny {
		out = append(out, Option{Value: "", Label: "Any flag", Selected: len(selected) == 0 || selected[0] == ""})
	}
	for _, f := range flags {
		if f.Status != "Active" && !sel[f.FlagID] {
			continue
		}
		out = append(out, Option{Value: f.FlagID, Label: f.Name, Selected: sel[f.FlagID]})
	}
	return out
}

// FlagNames are the names of flags by id, to show the flags an item
// carries.
func FlagNames(flags []store.Flag) map[string]string {
	names := make(map[string]string, len(flags))
	for _, f := range flags {
		names[f.FlagID] = f.Name
	}
	return names
}

// OrgCrumbs are the breadcrumbs of a page under the organisations:
// Organisations › o (linked unless it is the page) › last.
func OrgCrumbs(o *store.Organisation, last string) []Crumb {
	c := []Crumb{{Label: "Organisations", Href: paths.Organisations()}}
	if o != nil {
		if last == "" {
			return append(c, Crumb{Label: o.OrganisationName})
		}
		c = append(c, Crumb{Label: o.OrganisationName, Href: paths.Organisation(o.OrganisationID)})
	}
	if last != "" {
		c = append(c, Crumb{Label: last})
	}
	return c
}

// OrgFormCrumbs are the breadcrumbs of an add or edit page under the
// organisation's tab (label, at href): the tab links back to its list.
func OrgFormCrumbs(o *store.Organisation, label, href, last string) []Crumb {
	c := OrgCrumbs(o, label)
	c[len(c)-1].Href = href
	return append(c, Crumb{Label: last})
}

// NewOrgPage is the header of the organisation's tab tab: o with its
// status in the deployment's words, and the statuses it may move to.
func NewOrgPage(vocab lifecycle.Vocabulary, o store.Organisation, tab string) OrgPage {
	st := o.Status
	o.Status = vocab.Display(st)
	return OrgPage{Org: o, Tab: tab, StatusOpts: NextStatuses(vocab, lifecycle.Organisation, st)}
}

// OrgRoles is the Roles column of the organisation list: the Active roles
// held by each organisation, "Domain — Role".
func OrgRoles(held map[string][]store.HeldRole) map[string][]string {
	out := make(map[string][]string, len(held))
	for id, hs := range held {
		for _, hr := range hs {
			out[id] = append(out[id], hr.AuthorisationDomain+" — "+hr.Role)
		}
	}
	return out
}

// OrgExportURL is the CSV export of the list's search, filters and sort
// in q.
func OrgExportURL(q url.Values) string {
	eq := url.Values{}
	for _, k := range []string{"q", "Status", "Flag", "AuthorisationDomain", "Role", "sort"} {
		if v := q.Get(k); v != "" {
			eq.Set(k, v)
		}
	}
	u := paths.Organisations() + "/export.csv"
	if len(eq) > 0 {
		u += "?" + eq.Encode()
	}
	return u
}

// NewOrgForm is the organisation form: a new one, or o's with the version
// being edited (v), errs beside their fields.
func NewOrgForm(vocab lifecycle.Vocabulary, o store.Organisation, isNew bool, errs map[string]string, flags []store.Flag, v Version) OrgForm {
	if canon, ok := lifecycle.ParseStatus(lifecycle.Organisation, o.Status); ok {
		o.Status = canon // the select's value
	}
	action := paths.Organisations()
	if !isNew {
		action = paths.Organisation(o.OrganisationID)
	}
	return OrgForm{Org: o, IsNew: isNew, Action: action, Errors: errs, Version: v,
		StatusOpts: StatusOptions(vocab, lifecycle.Organisation, o.Status, false), FlagOpts: FlagOptions(flags, o.Flags, false)}
}

// OrgFormTitle is the title and breadcrumbs of the organisation form.
func OrgFormTitle(o store.Organisation, isNew bool) (string, []Crumb) {
	if isNew {
		return "Add organisation", OrgCrumbs(nil, "Add organisation")
	}
	return "Edit organisation", OrgCrumbs(&o, "Edit")
}

// SaveWord is the console's one wording of a save's message: a new thing
// "was added" (its Add page), a change "was saved" (its Edit page); a
// change of status says its own verb (SavedMessage: "was withdrawn", "is
// now Inactive"), and so do actions that are not a form's save (issued,
// uploaded, revoked, imported, deleted, an invitation sent).
func SaveWord(isNew bool) string {
	if isNew {
		return "was added"
	}
	return "was saved"
}

// SavedMessage says what a save did, in words: "Acme Bank was withdrawn."
// after a status change to the end state, not "saved"; from is the status
// before the save ("" for a new one: "was added", SaveWord).
func SavedMessage(vocab lifecycle.Vocabulary, what, name, from, to string) string {
	switch {
	case from == "":
		return what + name + " " + SaveWord(true) + "."
	case from == to:
		return what + name + " " + SaveWord(false) + "."
	case to == lifecycle.Withdrawn && vocab.EndWord() == lifecycle.Withdrawn:
		return what + name + " was withdrawn."
	case from == lifecycle.Withdrawn:
		return what + name + " was reactivated: it is " + vocab.Display(to) + " again."
	default:
		return what + name + " is now " + vocab.Display(to) + "."
	}
}

// SameRegistration warns that the new organisation o has the registration
// of others (same): perhaps it is one of them.
func SameRegistration(vocab lifecycle.Vocabulary, o store.Organisation, same []store.Organisation) string {
	names := make([]string, len(same))
	for i, s := range same {
		names[i] = s.OrganisationName + " (" + vocab.Display(s.Status) + ")"
	}
	return o.OrganisationName + " " + SaveWord(true) + ", but " + strings.Join(names, ", ") + " already has registration number " +
		o.RegistrationNumber + " in " + o.CountryOfRegistration + ". If it is the same organisation, set this one " + vocab.EndWord() + " and keep the other."
}

// FoundPath is the console page of what an exact identifier names.
func FoundPath(f store.Found) string {
	switch f.What {
	case store.FoundApplication:
		return paths.Application(f.OrganisationID, f.ID)
	case store.FoundServer:
		return paths.OrganisationTab(f.OrganisationID, "authorisationservers")
	case store.FoundCertificate:
		return paths.OrganisationTab(f.OrganisationID, "certificates")
	case store.FoundKeyMaterial:
		return paths.KeyMaterial(f.OrganisationID, f.ID)
	case store.FoundContact:
		// The contact's own page: its edit form, which shows all of it.
		return paths.Contact(f.OrganisationID, f.ID) + "/edit"
	default:
		return paths.Organisation(f.OrganisationID)
	}
}

// FoundMessage says what the identifier q typed in the search names.
func FoundMessage(q string, f store.Found) string {
	return "“" + q + "” is the " + f.What + " " + f.Name + "."
}
