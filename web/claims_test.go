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

// TestClaimFormPreselectsNothing: the authority and the domain-and-role
// lists start on an empty choice, so a claim is never saved for the first
// role without looking; sent so, it is refused beside each list, the role
// in one sentence.
func TestClaimFormPreselectsNothing(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	setupDomains(t, su)
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc := page(t, c, env.URL+"/organisations/"+oid+"/authority-claims/new")
	for _, name := range []string{"AuthorityId", "DomainRole"} {
		first := doc.Find("[data-testid=claim-form] select[name=" + name + "] option").First()
		if first.AttrOr("value", "x") != "" || doc.Find("[data-testid=claim-form] select[name="+name+"] option[selected]").Length() != 0 {
			t.Errorf("%s: the first option is %q and something is preselected", name, first.AttrOr("value", "x"))
		}
	}
	code, doc := postForm(t, c, env.URL+"/organisations/"+oid+"/authority-claims", browserForm(doc, "/organisations/"+oid+"/authority-claims"))
	if code != 422 || doc.Find("#e-DomainRole").Text() != "Choose a domain and role." || doc.Find("#e-AuthorityId").Text() == "" {
		h, _ := doc.Find("[data-testid=claim-form]").Html()
		t.Fatalf("sent with nothing chosen: %d\n%s", code, h)
	}
	if l := su.must(200, "GET", "/organisations/"+oid+"/authority-claims", ""); len(l["list"].([]any)) != 0 {
		t.Fatalf("a claim was saved: %v", l)
	}
}
