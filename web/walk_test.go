package web_test

import (
	"slices"

	"github.com/PuerkitoBio/goquery"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// Findings of a walk through the console as a new user (a Super User and a
// Data Administrator setting up domains, roles, claims, applications, SSAs
// and policies).

// TestConsoleRoleFormErrorIsTiedToItsField: a refused new role (Domains and
// Roles) marks its Name field as the other forms do, so the field is shown
// in error, gets focus (static/console.js focuses [aria-invalid]) and a
// screen reader reads the message with it.
func TestConsoleRoleFormErrorIsTiedToItsField(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	su.must(201, "POST", "/references/authorisation-domains", `{"Name":"Payments"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.PostForm(env.URL+"/references/authorisation-domains/Payments/roles", url.Values{"Name": {""}, "Type": {"Directory"}, "Exclusive": {"true"}, "Description": {"Payment initiation"}, "Status": {"Active"}})
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("status %d", resp.StatusCode)
	}
	in := doc.Find("input#role-name-Payments")
	msg := doc.Find("#role-name-Payments-error")
	if msg.Text() == "" {
		t.Fatal("no message beside the role name")
	}
	if v, _ := in.Attr("aria-invalid"); v != "true" {
		t.Errorf("role name input has aria-invalid %q, want true", v)
	}
	if v, _ := in.Attr("aria-describedby"); v != "role-name-Payments-error" {
		t.Errorf("role name input has aria-describedby %q, want role-name-Payments-error", v)
	}
	// The other forms of the page are not marked.
	if n := doc.Find(`[aria-invalid="true"]`).Length(); n != 1 {
		t.Errorf("%d fields marked invalid, want 1", n)
	}
	form := doc.Find("details[open] [data-testid=role-form]")
	if !strings.Contains(form.Text(), "Add role") {
		t.Fatal("the role form is not open")
	}
	// What was typed stays (nothing to type again).
	if v, _ := form.Find("#role-desc-Payments").Attr("value"); v != "Payment initiation" {
		t.Errorf("description kept as %q", v)
	}
	if _, ok := form.Find("[data-testid=role-exclusive]").Attr("checked"); !ok {
		t.Error("Exclusive not kept")
	}
	if v, _ := form.Find("#role-type-Payments option[selected]").Attr("value"); v != "Directory" {
		t.Errorf("type kept as %q", v)
	}
}

// TestAuditSubjectTypeIsPicked: the audit log's Subject type filter is a
// list of the subject types the log holds, as Action is: typed by hand, a
// user had to guess AuthorityClaim or RoleMetadataPolicy, and "organisation"
// (lower case) found nothing.
func TestAuditSubjectTypeIsPicked(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	grant(t, su, oid, auth, "Payments", "PISP")
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.Get(env.URL + "/audit?Subject=AuthorityClaim")
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	sel := doc.Find(`[data-testid=audit-filter] select[name=Subject]`)
	if sel.Length() != 1 {
		t.Fatalf("no Subject type list in the audit filter")
	}
	var opts []string
	sel.Find("option").Each(func(_ int, o *goquery.Selection) {
		v, _ := o.Attr("value")
		opts = append(opts, v)
	})
	for _, want := range []string{"", "AuthorityClaim", "Organisation", "Role", "AuthorisationDomain"} {
		if !slices.Contains(opts, want) {
			t.Errorf("Subject type options %v lack %q", opts, want)
		}
	}
	if v, _ := sel.Find("option[selected]").Attr("value"); v != "AuthorityClaim" {
		t.Errorf("selected %q, want AuthorityClaim", v)
	}
	if n := doc.Find("[data-testid=audit-count]").Text(); !strings.HasPrefix(strings.TrimSpace(n), "1 event") {
		t.Errorf("count %q, want 1 event", n)
	}
	if id, _ := sel.Attr("id"); id == "" || doc.Find(`label[for="`+id+`"]`).Length() != 1 && sel.Closest("label").Length() != 1 {
		t.Error("the Subject type list has no label")
	}
}

// TestApplicationFormSpeaksToUsers: the application form's labels are for
// its users; the Federation entity ID's label cited the project's design
// document ("docs/design.md §13"), which a user of the console cannot open.
func TestApplicationFormSpeaksToUsers(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.Get(env.URL + "/organisations/" + oid + "/softwarestatements/new")
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	label := doc.Find(`label[for=f-FederationEntityId]`).Text()
	if !strings.Contains(label, "Federation entity ID") {
		t.Fatalf("label %q", label)
	}
	if txt := doc.Find("main").Text(); strings.Contains(txt, "design.md") || strings.Contains(txt, "§") {
		t.Errorf("the form cites the design document: %q", label)
	}
}

// TestSearchLandmarksHaveNames: a page with a filter form has two search
// landmarks (the header's quick find and the filter); each needs its own
// name, or a screen reader's landmark list shows two "search" alike (axe
// landmark-unique).
func TestSearchLandmarksHaveNames(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	for _, p := range []string{"/organisations", "/audit"} {
		resp, err := c.Get(env.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		doc := docOf(t, resp)
		names := map[string]bool{}
		doc.Find(`[role=search], search`).Each(func(_ int, s *goquery.Selection) {
			name, _ := s.Attr("aria-label")
			if id, ok := s.Attr("aria-labelledby"); ok {
				name = doc.Find("#" + id).Text()
			}
			name = strings.TrimSpace(name)
			if name == "" {
				t.Errorf("%s: a search landmark without a name: %s", p, goquery.NodeName(s)+"."+s.AttrOr("class", "")+" "+s.AttrOr("data-testid", ""))
			} else if names[name] {
				t.Errorf("%s: two search landmarks named %q", p, name)
			}
			names[name] = true
		})
		if len(names) == 0 {
			t.Errorf("%s: no search landmark", p)
		}
	}
}

// TestConflictLeadsToWhatIsInTheWay: a refused change on Domains and Roles
// (disable a role that an organisation's claim holds) lists the claim in
// the way with a link to that organisation's Roles tab, where the claim is
// set Inactive. Before, the list gave the organisation's id only: a dead
// end unless the user copied the id into the search.
func TestConflictLeadsToWhatIsInTheWay(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	auth := setupDomains(t, su)
	oid := su.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	grant(t, su, oid, auth, "Payments", "PISP")
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.PostForm(env.URL+"/references/authorisation-domains/Payments/roles/PISP", url.Values{"Type": {"Federation"}, "Status": {"Inactive"}})
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("status %d", resp.StatusCode)
	}
	li := doc.Find("[data-testid=in-the-way] li")
	if li.Length() != 1 {
		t.Fatalf("%d items in the way", li.Length())
	}
	// The summary is announced (role=alert), on an element that may take
	// that role: an article may not (axe aria-allowed-role).
	if doc.Find("article[role]").Length() != 0 || !strings.Contains(doc.Find("[data-testid=conflict] [role=alert]").Text(), "is held by") {
		h, _ := doc.Find("[data-testid=conflict]").Html()
		t.Errorf("conflict box: %s", h)
	}
	href, _ := li.Find("a").Attr("href")
	if href != "/organisations/"+oid+"/authority-claims" {
		t.Errorf("the claim in the way links to %q, want its organisation's Roles tab", href)
	}
	// The link leads to a page that shows the claim and a way to end it.
	resp, err = c.Get(env.URL + href)
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	if resp.StatusCode != 200 || doc.Find(`[data-testid=claim-row][data-role=PISP]`).Length() != 1 {
		t.Errorf("the linked page (%d) does not show the PISP claim", resp.StatusCode)
	}

	// A contact type in use links to the contacts of its organisation.
	su.must(201, "POST", "/organisations/"+oid+"/contacts", `{"ContactType":"Business","FirstName":"Ann","LastName":"Doe","EmailAddress":"ann@acme.example"}`)
	resp, err = c.PostForm(env.URL+"/references/contact-types/Business/delete", url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	href, _ = doc.Find("[data-testid=in-the-way] li a").Attr("href")
	if resp.StatusCode != http.StatusConflict || href != "/organisations/"+oid+"/contacts" {
		t.Errorf("contact type in use: %d, link %q", resp.StatusCode, href)
	}
}

// TestPolicyFormPicksDomainAndRoleTogether: the new-policy form offers one
// list of domain roles ("Payments: PISP"), as the Roles tab's claim form
// does. It had a domain list and a role list whose options already named
// their domain: picking "Data: DATA" with the domain left at Payments was
// refused ("DATA" is not a role of the domain "Payments"), and with a role
// name in two domains the lists could not tell them apart.
func TestPolicyFormPicksDomainAndRoleTogether(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	setupDomains(t, su)
	su.must(201, "POST", "/references/authorisation-domains/Data/roles", `{"Name":"PISP","Type":"Federation"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.Get(env.URL + "/references/role-metadata-policies")
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	form := doc.Find("[data-testid=policy-form]")
	if n := form.Find("select[name=AuthorisationDomain]").Length(); n != 0 {
		t.Errorf("the form has a separate domain list beside the role list")
	}
	var vals []string
	form.Find("select[name=DomainRole] option").Each(func(_ int, o *goquery.Selection) { vals = append(vals, o.AttrOr("value", "")) })
	for _, want := range []string{"Payments/PISP", "Data/PISP", "Data/DATA"} {
		if !slices.Contains(vals, want) {
			t.Errorf("domain and role options %v lack %s", vals, want)
		}
	}
	// Data's PISP, picked from the one list, is saved for Data.
	resp, err = c.PostForm(env.URL+"/references/role-metadata-policies", url.Values{"DomainRole": {"Data/PISP"}, "EntityType": {"openid_relying_party"},
		"Policy": {`{"grant_types":{"subset_of":["authorization_code"]}}`}, "Status": {"Active"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("save: %d", resp.StatusCode)
	}
	list := su.must(200, "GET", "/references/role-metadata-policies", "")["list"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["AuthorisationDomain"] != "Data" || list[0].(map[string]any)["Role"] != "PISP" {
		t.Fatalf("saved %v", list)
	}
	id := list[0].(map[string]any)["PolicyId"].(string)
	// Its edit form shows that one choice, not Payments' PISP.
	resp, err = c.Get(env.URL + "/references/role-metadata-policies")
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	sel := doc.Find("[data-testid=policy-edit-form] select[name=DomainRole] option[selected]")
	if sel.Length() != 1 || sel.AttrOr("value", "") != "Data/PISP" {
		t.Errorf("edit form selects %d option(s), %q", sel.Length(), sel.AttrOr("value", ""))
	}
	// A refused save shows its message beside the one list of its edit
	// form (TestPolicyEditRefusalStaysInItsEditForm).
	resp, err = c.PostForm(env.URL+"/references/role-metadata-policies/"+id, url.Values{"DomainRole": {"Data/NOPE"}, "EntityType": {"openid_relying_party"},
		"Policy": {`{"grant_types":{"subset_of":["authorization_code"]}}`}, "Status": {"Active"}})
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	if resp.StatusCode != 422 || doc.Find("#r-"+id+"-error").Text() == "" {
		t.Errorf("refused save: %d, message beside the list %q", resp.StatusCode, doc.Find("#r-"+id+"-error").Text())
	}
}

// TestOrganisationHeaderReadsAsWords: the line under an organisation's
// name reads "12345678 · GB · Pending"; the status word was glued to the
// dot ("GB ·Pending").
func TestOrganisationHeaderReadsAsWords(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	oid := su.must(201, "POST", "/organisations", `{"OrganisationName":"Acme","RegistrationNumber":"12345678","CountryOfRegistration":"GB"}`)["OrganisationId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.Get(env.URL + "/organisations/" + oid)
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	line := strings.Join(strings.Fields(doc.Find("hgroup p").First().Text()), " ")
	if !strings.HasPrefix(line, "12345678 · GB · ") {
		t.Errorf("header line %q", line)
	}
}

// TestSSAIsShownReadable: after Generate SSA the page shows what the SSA
// says, its header (alg, kid) and its claims as indented JSON, beside the
// token to copy: before, a reader had only the base64url token (several
// kilobytes for ML-DSA-65) and had to decode it elsewhere.
func TestSSAIsShownReadable(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	oid := su.must(201, "POST", "/organisations", strings.TrimSuffix(org("Acme"), "}")+`,"Status":"Active"}`)["OrganisationId"].(string)
	aid := su.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Payments app","RedirectUri":["https://app.acme.example/cb"]}`)["SoftwareStatementId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	for _, alg := range []string{"ML-DSA-65", "PS256"} {
		resp, err := c.Get(env.URL + "/organisations/" + oid + "/softwarestatements/" + aid + "/assertion?signingAlg=" + alg)
		if err != nil {
			t.Fatal(err)
		}
		doc := docOf(t, resp)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: status %d", alg, resp.StatusCode)
		}
		header := doc.Find("[data-testid=ssa-header]").Text()
		claims := doc.Find("[data-testid=ssa-claims]").Text()
		if !strings.Contains(header, `"alg": "`+alg+`"`) || !strings.Contains(header, `"kid": "`) {
			t.Errorf("%s: header shown as %q", alg, header)
		}
		if !strings.Contains(claims, `"software_client_name": "Payments app"`) || !strings.Contains(claims, `"org_name": "Acme"`) {
			t.Errorf("%s: claims shown as %q", alg, claims)
		}
	}
}

// TestPolicyJSONMistakeIsNamed: a policy typed with a JSON mistake (a
// missing brace) is refused beside the field with what is wrong and where;
// it said "the policy must be a JSON object of metadata parameters", which
// the user had typed. What was typed stays in the field.
func TestPolicyJSONMistakeIsNamed(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	setupDomains(t, su)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	typed := `{"grant_types": {"subset_of": ["authorization_code"]}`
	resp, err := c.PostForm(env.URL+"/references/role-metadata-policies", url.Values{"DomainRole": {"Payments/PISP"}, "EntityType": {"openid_relying_party"},
		"Policy": {typed}, "Status": {"Active"}})
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	msg := doc.Find("#e-Policy").Text()
	if resp.StatusCode != 422 || !strings.Contains(msg, "not valid JSON") || !strings.Contains(msg, "character") {
		t.Errorf("%d, message %q", resp.StatusCode, msg)
	}
	if got := doc.Find("#f-Policy").Text(); got != typed {
		t.Errorf("the field holds %q", got)
	}
	if l := su.must(200, "GET", "/references/role-metadata-policies", "")["list"].([]any); len(l) != 0 {
		t.Errorf("%d policies saved", len(l))
	}
}

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
	resp, err := c.Get(env.URL + "/organisations/" + oid + "/authority-claims")
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
	resp, err = c.Get(env.URL + "/organisations/" + oid + "/authority-claims")
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	if doc.Find(`[data-testid=claim-form] select[name=DomainRole] option[value="Data/DATA"]`).Length() != 1 {
		t.Error("Data/DATA not offered once Data Office covers Data")
	}
}

// TestImportPageSaysRolesAreNotImported: the import takes the export's
// columns, Roles among them, and ignores Roles (a role is an authority
// claim, recorded on its own). The page said only CreatedOn and UpdatedOn
// were ignored: a user importing an export with roles found none and no
// word why.
func TestImportPageSaysRolesAreNotImported(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.Get(env.URL + "/organisations/import")
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	txt := strings.Join(strings.Fields(doc.Find("main").Text()), " ")
	if !strings.Contains(txt, "Roles, CreatedOn and UpdatedOn are ignored") || !strings.Contains(txt, "Roles tab") {
		t.Errorf("the import page does not say Roles are not imported: %q", txt)
	}
}

// TestHomeNamesDomainsAndRoles: a Super User's home page names Domains and
// Roles among Reference Data (what a new directory needs set up before its
// organisations can hold roles); the card listed administrators, types,
// flags, identity providers and signing keys only.
func TestHomeNamesDomainsAndRoles(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.Get(env.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	card := doc.Find(`main article:has(a[href="/references"])`).Text()
	if !strings.Contains(card, "domains and roles") {
		t.Errorf("the Reference Data card reads %q", strings.Join(strings.Fields(card), " "))
	}
}
