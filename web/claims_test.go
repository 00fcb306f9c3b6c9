package web_test

import (
	"slices"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestClaimFormOffersOnlyClaimableRoles: the Roles tab's list of domain
// roles leaves out the roles of a domain no Active authority covers: no
// claim on them can be recorded, and the first option of the list was such
// a role (Data: DATA), so pressing Enter on the form was refused ("the
// authority does not cover the domain").
func TestClaimFormOffersOnlyClaimableRoles(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	setupDomains(t, su) // Central Bank covers Payments, not Data
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.Get(env.URL + "/organisations/" + oid + "/authority-claims/new")
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	var vals []string
	doc.Find("[data-testid=claim-form] select[name=DomainRole] option").Each(func(_ int, o *goquery.Selection) { vals = append(vals, o.AttrOr("value", "")) })
	if slices.Contains(vals, "Data/DATA") {
		t.Errorf("options %v offer Data/DATA, which no authority covers", vals)
	}
	for _, want := range []string{"Payments/PISP", "Payments/AISP", "Payments/EXCL"} {
		if !slices.Contains(vals, want) {
			t.Errorf("options %v lack %s", vals, want)
		}
	}
	// Once an authority covers Data, its role is offered.
	su.must(201, "POST", "/references/authorities", `{"AuthorityName":"Data Office","AuthorityCode":"DO","Country":"GB","AuthorisationDomains":["Data"]}`)
	resp, err = c.Get(env.URL + "/organisations/" + oid + "/authority-claims/new")
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	if doc.Find(`[data-testid=claim-form] select[name=DomainRole] option[value="Data/DATA"]`).Length() != 1 {
		t.Error("Data/DATA not offered once Data Office covers Data")
	}
}
