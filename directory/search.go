package directory

import (
	"context"
	"slices"
	"strings"

	"github.com/trustframe/trustframe/lifecycle"
)

// OrgFilter selects and orders organisations: the organisation list's
// search, filters, sort and page.
type OrgFilter struct {
	Q      string // searches name and registration number
	Status string // canonical
	Flag   string
	Role   string // organisations with an Active claim on a role of this name
	Domain string // … in this authorisation domain
	Sort   string // OrganisationName, RegistrationNumber, CountryOfRegistration, Status, CreatedOn
	Desc   bool
	Page   int
	Size   int
	// Within limits the list to these organisations (an Organisation
	// Administrator's, docs/design.md §19): a comma-separated list of
	// ids, kept a string so that filters compare; "" is every one.
	Within string
	// Everything: the console header's Find (find=1) — a search by name
	// across the directory (SearchNames), not only organisations.
	Everything bool
}

// Found is what an identifier names.
type Found struct {
	What           string // one of the Found* kinds
	Name           string // what to call it
	OrganisationID string // the organisation it belongs to
	ID             string // its own id (the kid for a certificate)
	// OrganisationName is the name of the organisation it belongs to
	// (SearchNames; "" for an organisation itself).
	OrganisationName string
}

// The kinds of thing an identifier can name (Found.What).
const (
	FoundOrganisation = "organisation"
	FoundApplication  = "application"
	FoundServer       = "authorisation server"
	FoundCertificate  = "certificate"
	FoundKeyMaterial  = "key material"
	FoundContact      = "contact"
)

// HeldRole is a role an organisation holds through an Active claim.
type HeldRole struct {
	AuthorisationDomain string
	Role                string
}

// OrganisationListStore is what the organisation list and its export need
// of the database.
type OrganisationListStore interface {
	ListOrganisations(ctx context.Context, f OrgFilter) ([]Organisation, int, error)
	EachOrganisation(ctx context.Context, f OrgFilter, fn func(o Organisation, flagNames, roles []string) error) error
	ListDomainRoles(ctx context.Context, domain string) ([]DomainRole, error)
	ActiveRolesOf(ctx context.Context, ids []string) (map[string][]HeldRole, error)
	FindIdentifier(ctx context.Context, q string) (Found, bool, error)
	SearchNames(ctx context.Context, q string, within []string, limit int) ([]Found, error)
	ListFlags(ctx context.Context, typ string) ([]Flag, error)
}

// OrganisationList is the use cases of the organisation list: search,
// filters, sort and pages, the jump to what an exact identifier names, and
// the CSV export.
type OrganisationList struct {
	Store OrganisationListStore
	Vocab lifecycle.Vocabulary // the words statuses are shown in
}

// OrgList is a page of the organisation list and, for the console, what is
// shown beside it.
type OrgList struct {
	Items []Organisation
	Total int
	// Found is what the search names exactly, when the console asked for
	// the first page: the console goes there instead of listing.
	Found *Found
	Flags []Flag                // the Flag filter's choices
	Roles []DomainRole          // the Role filter's choices
	Held  map[string][]HeldRole // the Active roles of Items, by organisation id
	// Results are what the console's search found by name across the
	// directory when more than one thing and not only organisations
	// (at most SearchLimit+1 of each kind): the results page, by kind.
	Results []Found
}

// SearchLimit is how many of each kind the search's results page lists.
const SearchLimit = 10

// RoleFilter checks the AuthorisationDomain and Role filters of the list
// (and of the participants) against the roles there are (the package's
// RoleFilter): nil when both are known or not given.
func (l *OrganisationList) RoleFilter(ctx context.Context, domain, role string) (*FieldError, error) {
	if domain == "" && role == "" {
		return nil, nil
	}
	roles, err := l.Store.ListDomainRoles(ctx, "")
	if err != nil {
		return nil, err
	}
	return RoleFilter(roles, domain, role), nil
}

// List is the page of organisations f selects, their statuses in the
// deployment's words. For the console (console
// true) a search on the first page that is an exact identifier (a client
// ID, an issuer, a kid, an id) answers Found alone; the header's Find
// (f.Everything) that names exactly one thing by name or kid prefix
// (SearchNames) answers Found too, one that names several things, not
// all organisations, Results; otherwise the page
// comes with the filters' choices and the roles its organisations hold
// (one query for the page).
func (l *OrganisationList) List(ctx context.Context, f OrgFilter, console bool) (OrgList, error) {
	var out OrgList
	if console && f.Q != "" && f.Page == 0 {
		found, ok, err := l.Store.FindIdentifier(ctx, f.Q)
		if ok && f.Within != "" && !slices.Contains(strings.Split(f.Within, ","), found.OrganisationID) {
			ok = false // another organisation's: not revealed (docs/design.md §19)
		}
		if err != nil || ok {
			out.Found = &found
			return out, err
		}
		if f.Everything && f.Status == "" && f.Flag == "" && f.Role == "" && f.Domain == "" {
			var within []string
			if f.Within != "" {
				within = strings.Split(f.Within, ",")
			}
			res, err := l.Store.SearchNames(ctx, f.Q, within, SearchLimit)
			if err != nil {
				return out, err
			}
			switch {
			case len(res) == 1:
				out.Found = &res[0] // one match: straight there
				return out, nil
			case slices.ContainsFunc(res, func(x Found) bool { return x.What != FoundOrganisation }):
				out.Results = res
				return out, nil
			}
			// Only organisations (or nothing): the organisation list is the results page.
		}
	}
	var err error
	if out.Items, out.Total, err = l.Store.ListOrganisations(ctx, f); err != nil {
		return out, err
	}
	for i := range out.Items {
		out.Items[i].Status = l.Vocab.Display(out.Items[i].Status)
	}
	if !console {
		return out, nil
	}
	if out.Flags, err = l.Store.ListFlags(ctx, "Organisation"); err != nil {
		return out, err
	}
	if out.Roles, err = l.Store.ListDomainRoles(ctx, ""); err != nil {
		return out, err
	}
	ids := make([]string, len(out.Items))
	for i, o := range out.Items {
		ids[i] = o.OrganisationID
	}
	out.Held, err = l.Store.ActiveRolesOf(ctx, ids)
	return out, err
}

// Export hands row every organisation f selects, in f's order, as a row of
// the CSV export (OrganisationRow), its status in the deployment's words.
func (l *OrganisationList) Export(ctx context.Context, f OrgFilter, row func([]string) error) error {
	return l.Store.EachOrganisation(ctx, f, func(o Organisation, flags, roles []string) error {
		o.Status = l.Vocab.Display(o.Status)
		return row(OrganisationRow(o, flags, roles))
	})
}
