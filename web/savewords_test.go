package web_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestConsoleSavesSayAddedOrSaved: after a console save the message said
// "was created", "was added", "was recorded", "Attached …", "… saved" or
// "was saved" for the same job (issue 40's leftovers). One wording now
// (views.SaveWord): an Add page's save says "<what> <name> was added.", an
// Edit page's "… was saved."; changes of status keep their own verbs. Each
// page is filled as a person would and sent as the browser sends it.
func TestConsoleSavesSayAddedOrSaved(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	oid := su.must(201, "POST", "/organisations", strings.TrimSuffix(org("Acme"), "}")+`,"Status":"Active"}`)["OrganisationId"].(string)
	o := "/organisations/" + oid
	app := su.must(201, "POST", o+"/softwarestatements", `{"ClientName":"Payments app","RedirectUri":["https://app.acme.example/cb"]}`)["SoftwareStatementId"].(string)
	contact := su.must(201, "POST", o+"/contacts", `{"ContactType":"Business","LastName":"Brown","EmailAddress":"brown@acme.example"}`)["ContactId"].(string)
	doc := su.must(201, "POST", o+"/documents", `{"DocumentType":"Licence","DocumentReferenceNumber":"L-1","DocumentStartDate":"2026-01-01"}`)["DocumentId"].(string)
	cert := su.must(201, "POST", o+"/softwarestatements/"+app+"/certifications", `{"CertificationType":"DCR","CertificationStartDate":"2026-01-01"}`)["CertificationId"].(string)
	tmt := su.must(201, "POST", "/references/trust-mark-types", `{"Name":"Data","Basis":"Role","AuthorisationDomain":"Data","Role":"DATA"}`)["Id"].(string)
	policy := su.must(201, "POST", "/references/role-metadata-policies", `{"AuthorisationDomain":"Payments","Role":"AISP","EntityType":"openid_relying_party","Policy":{"scope":{"essential":true}}}`)["PolicyId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	for _, tc := range []struct {
		page string
		set  url.Values // over what the page holds
		want string
	}{
		// Add pages.
		{"/organisations/new", url.Values{"OrganisationName": {"Beta Bank"}, "RegistrationNumber": {"R-2"}, "CountryOfRegistration": {"GB"}}, "Beta Bank was added."},
		{o + "/contacts/new", url.Values{"ContactType": {"Business"}, "LastName": {"Adams"}, "EmailAddress": {"adams@acme.example"}}, "Contact Adams was added."},
		{o + "/softwarestatements/new", url.Values{"ClientName": {"Second app"}, "RedirectUri": {"https://two.acme.example/cb"}}, "Application Second app was added."},
		{o + "/documents/new", url.Values{"DocumentType": {"Licence"}, "DocumentReferenceNumber": {"L-2"}, "DocumentStartDate": {"2026-02-01"}}, "The Licence document was added."},
		{o + "/softwarestatements/" + app + "/certifications/new", url.Values{"CertificationType": {"FAPI"}, "CertificationStartDate": {"2026-01-01"}}, "The FAPI certification was added."},
		{o + "/authority-claims/new", url.Values{"AuthorityId": {auth}, "DomainRole": {"Payments/PISP"}}, "The role PISP (Payments) was added."},
		{"/references/contact-types/new", url.Values{"Name": {"Legal"}}, "Contact type Legal was added."},
		{"/references/flags/new", url.Values{"Name": {"Pilot"}, "Type": {"Organisation"}}, "Flag Pilot was added."},
		{"/references/super-users/new", url.Values{"Email": {"sue@example.com"}}, "Super User sue@example.com was added"},
		{"/references/trust-mark-types/new", url.Values{"Name": {"PISP mark"}, "Basis": {"Role"}, "DomainRole": {"Payments/PISP"}}, "Trust mark type PISP mark was added."},
		{"/references/authorisation-domains/new", url.Values{"Name": {"Pensions"}}, "Authorisation domain Pensions was added."},
		{"/references/authorisation-domains/Payments/roles/new", url.Values{"Name": {"CBPII"}, "Type": {"Federation"}}, "Role CBPII of Payments was added."},
		{"/references/authorities/new", url.Values{"AuthorityName": {"Other Bank"}, "AuthorityCode": {"OB"}, "Country": {"GB"}, "AuthorisationDomains": {"Data"}}, "Authority Other Bank was added."},
		{"/references/role-metadata-policies/new", url.Values{"DomainRole": {"Payments/PISP"}, "EntityType": {"openid_relying_party"}, "Policy": {`{"scope":{"essential":true}}`}}, "The policy for Payments: PISP / openid_relying_party was added."},
		// Edit pages.
		{"/organisations/" + oid + "/edit", nil, "Acme was saved."},
		{o + "/contacts/" + contact + "/edit", url.Values{"Department": {"Sales"}}, "Contact Brown was saved."},
		{o + "/documents/" + doc + "/edit", url.Values{"DocumentDescription": {"renewed"}}, "The Licence document was saved."},
		{o + "/softwarestatements/" + app + "/certifications/" + cert + "/edit", url.Values{"CertificationURI": {"https://cert.example/dcr"}}, "The DCR certification was saved."},
		{"/references/trust-mark-types/" + tmt + "/edit", url.Values{"Description": {"edited"}}, "Trust mark type Data was saved."},
		{"/references/authorisation-domains/Data/edit", url.Values{"Description": {"edited"}}, "Authorisation domain Data was saved."},
		{"/references/authorisation-domains/Data/roles/DATA/edit", url.Values{"Description": {"edited"}}, "Role DATA of Data was saved."},
		{"/references/authorities/" + auth + "/edit", url.Values{"AuthorityCode": {"CB1"}}, "Authority Central Bank was saved."},
		{"/references/role-metadata-policies/" + policy + "/edit", url.Values{"Description": {"edited"}}, "The policy for Payments: AISP / openid_relying_party was saved."},
	} {
		resp, pg := page(t, c, env.URL+tc.page)
		form := pg.Find(`main form[method=post]:has([data-testid=save])`)
		action, ok := form.Attr("action")
		if resp.StatusCode != 200 || form.Length() != 1 || !ok {
			t.Errorf("%s: %d, %d forms with Save", tc.page, resp.StatusCode, form.Length())
			continue
		}
		values := browserForm(pg, action)
		for k, v := range tc.set {
			values[k] = v
		}
		status, after := postForm(t, c, env.URL+action, values)
		flash := strings.TrimSpace(after.Find("[data-testid=flash]").Text())
		if status != 200 || !strings.HasPrefix(flash, tc.want) {
			t.Errorf("%s: %d, the message reads %q, want %q (%s)", tc.page, status, flash, tc.want, strings.Join(strings.Fields(after.Find("[aria-invalid=true], .tf-field-error").Text()), " "))
		}
		for _, word := range []string{"created", "recorded", "Attached"} {
			if strings.Contains(flash, word) {
				t.Errorf("%s: the message says %q", tc.page, word)
			}
		}
	}
}
