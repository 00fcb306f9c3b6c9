package views

import (
	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
)

// TypeOptions are the choices of a reference data select: the Active
// types, and cur though it is no longer Active (a saved choice stays
// shown), with cur selected.
func TypeOptions(types []store.ReferenceItem, cur string) []Option {
	var opts []Option
	for _, t := range types {
		if t.Status == "Active" || t.Name == cur {
			opts = append(opts, Option{Value: t.Name, Label: t.Name, Selected: t.Name == cur})
		}
	}
	return opts
}

// CertificationsPath is the console page of the certifications of s, a
// holder in the organisation orgID.
func CertificationsPath(orgID string, s directory.CertificationSubject) string {
	if s.Type == "SoftwareStatement" {
		return paths.Application(orgID, s.ID) + "/certifications"
	}
	return paths.Server(orgID, s.ID) + "/certifications"
}

// CertificationCrumbs are the breadcrumbs of the certifications of s:
// each parent a link — the organisation, the tab of its kind, s itself
// (issue 40: after adding a certification the application was not a
// link).
func CertificationCrumbs(o *store.Organisation, s directory.CertificationSubject) []Crumb {
	c := OrgCrumbs(o, s.Name)
	if s.Type == "SoftwareStatement" {
		c[len(c)-1].Href = paths.Application(o.OrganisationID, s.ID)
		c = append(c[:len(c)-1], Crumb{Label: "Applications", Href: paths.OrganisationTab(o.OrganisationID, "softwarestatements")}, c[len(c)-1])
	} else {
		c[len(c)-1].Href = paths.Server(o.OrganisationID, s.ID) + "/edit"
		c = append(c[:len(c)-1], Crumb{Label: "Authorisation servers", Href: paths.OrganisationTab(o.OrganisationID, "authorisationservers")}, c[len(c)-1])
	}
	return append(c, Crumb{Label: "Certifications"})
}

// SubjectTab is the organisation tab the holder s is shown under.
func SubjectTab(s directory.CertificationSubject) string {
	if s.Type == "SoftwareStatement" {
		return TabApplications
	}
	return TabServers
}

// CertHolders are the holders of the Certifications tab, each linked to
// its certifications page.
func CertHolders(orgID string, subjects []directory.CertificationSubject) []CertHolder {
	var out []CertHolder
	for _, s := range subjects {
		kind := "authorisation server"
		if s.Type == "SoftwareStatement" {
			kind = "application"
		}
		out = append(out, CertHolder{Name: s.Name, Kind: kind, Href: CertificationsPath(orgID, s)})
	}
	return out
}
