package views

import (
	"strconv"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/formats"
	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/paths"
)

// NewReactivatePage is the page of a reactivation: what it is about, what
// setting it Active again affects, and its breadcrumbs.
func NewReactivatePage(vocab lifecycle.Vocabulary, re directory.Reactivation) (ReactivatePage, []Crumb) {
	o := re.Organisation
	orgPath := paths.Organisation(o.OrganisationID)
	var p ReactivatePage
	var crumb string
	switch {
	case re.Application != nil:
		a := re.Application
		page := paths.Application(o.OrganisationID, a.SoftwareStatementID)
		p = ReactivatePage{What: "Application", Name: a.ClientName, Status: a.Status, Action: page + "/reactivate", Back: page,
			Affects: []string{
				"Software statement assertions (SSAs) can be issued for " + a.ClientName + " (client ID " + a.ClientID + ") again.",
				"It counts again among the Active applications of " + o.OrganisationName + " (" + vocab.Display(o.Status) + ").",
			}}
		crumb = "Reactivate " + a.ClientName
	case re.Server != nil:
		s := re.Server
		p = ReactivatePage{What: "Authorisation server", Name: s.CustomerFriendlyName, Status: s.Status,
			Action: orgPath + "/authorisationservers/" + s.AuthorisationServerID + "/reactivate", Back: orgPath + "/authorisationservers",
			Affects: []string{
				"Its issuer " + s.Issuer + " is listed again under " + o.OrganisationName + " in the public participants list (/api/participants) while the organisation is Active (it is " + vocab.Display(o.Status) + ").",
				"Its issuer stays reserved to it: no other authorisation server can take it.",
			}}
		crumb = "Reactivate " + s.CustomerFriendlyName
	default:
		isAre := "are"
		if re.Ended == 1 {
			isAre = "is"
		}
		p = ReactivatePage{What: "Organisation", Name: o.OrganisationName, Status: o.Status, Action: orgPath + "/reactivate", Back: orgPath,
			Affects: []string{
				o.OrganisationName + " is listed again in the public participants list (/api/participants), with its Active authorisation servers.",
				"Its " + formats.Count(re.Servers, "authorisation server", "authorisation servers") + " and " + formats.Count(re.Applications, "application", "applications") +
					" keep their own status: " + strconv.Itoa(re.Ended) + " of them " + isAre + " " + vocab.EndWord() + " and stay so until reactivated on their own pages.",
				"Its regulatory documents and certifications count again on the home page's expiry list.",
			}}
		crumb = "Reactivate"
	}
	p.Status, p.EndWord = vocab.Display(p.Status), vocab.EndWord()
	return p, OrgCrumbs(&o, crumb)
}
