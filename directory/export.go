package directory

import (
	"strings"
	"time"
)

// Guard is a cell of a CSV export as written: with an apostrophe first when
// a spreadsheet could read it as a formula (NeedsFormulaGuard, CSV
// injection), which the import takes off again (Unguard).
func Guard(s string) string {
	if NeedsFormulaGuard(s) {
		return "'" + s
	}
	return s
}

// OrganisationRow is an organisation as a row of the organisation list's
// CSV export, in the order of ImportColumns so that the file imports as it
// is, each text guarded (Guard). Each flag and role is guarded on its own,
// since the import takes the guard off each after it splits the list.
func OrganisationRow(o Organisation, flags, roles []string) []string {
	list := func(items []string) string {
		out := make([]string, len(items))
		for i, s := range items {
			out[i] = Guard(s)
		}
		return strings.Join(out, "; ")
	}
	return []string{o.OrganisationID, Guard(o.OrganisationName), Guard(o.LegalEntityName), Guard(o.RegistrationNumber),
		Guard(o.CountryOfRegistration), Guard(o.AddressLine1), Guard(o.AddressLine2), Guard(o.City), Guard(o.Postcode), o.Status,
		list(flags), list(roles), o.CreatedOn.UTC().Format(time.RFC3339), o.UpdatedOn.UTC().Format(time.RFC3339)}
}
