package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/trustframe/trustframe/web/webtest"
)

// An Organisation Administrator's console (docs/design.md §19): they land
// on their organisation, the menu and the pages show only what they may
// use; a Data Administrator's pages keep every button.

// orgAdminWorld is a directory with an Active organisation Acme holding a
// role, its flagged application and authorisation server, a document and
// a certification; another organisation Other; a Withdrawn application;
// and the console of oa@acme.example (administrator of Acme) and of a Data
// Administrator.
type orgAdminWorld struct {
	env                         *webtest.Env
	acme, other, app, srv, gone string
	flag                        string
	orgAdmin, dataAdmin         *http.Client
}

func newOrgAdminWorld(t *testing.T) *orgAdminWorld {
	t.Helper()
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	w := &orgAdminWorld{env: env}
	w.acme, w.app = setupApp(t, su)
	w.other = su.must(201, "POST", "/organisations", org("Other"))["OrganisationId"].(string)
	w.flag = su.must(201, "POST", "/references/flags", `{"Name":"Sandbox","Type":"Software_Statement"}`)["FlagId"].(string)
	asFlag := su.must(201, "POST", "/references/flags", `{"Name":"Pilot","Type":"Authorisation_Server"}`)["FlagId"].(string)
	apps := "/organisations/" + w.acme + "/softwarestatements/"
	a := su.must(200, "GET", apps+w.app, "")
	a["Flags"] = []string{w.flag}
	su.must(200, "PUT", apps+w.app, toJSON(t, a))
	w.srv = su.must(201, "POST", "/organisations/"+w.acme+"/authorisationservers", `{"CustomerFriendlyName":"Bank","Issuer":"`+discoveryServer(t, func(self string) string { return self })+`","Flags":["`+asFlag+`"]}`)["AuthorisationServerId"].(string)
	w.gone = su.must(201, "POST", "/organisations/"+w.acme+"/softwarestatements", `{"ClientName":"Old","Status":"Withdrawn"}`)["SoftwareStatementId"].(string)
	su.must(201, "POST", "/organisations/"+w.acme+"/documents", `{"DocumentType":"Licence","DocumentReferenceNumber":"LIC-1"}`)
	su.must(201, "POST", apps+w.app+"/certifications", `{"CertificationType":"FAPI","CertificationStartDate":"2026-01-01"}`)
	mustInviteOrgAdmin(t, env, "oa@acme.example", w.acme)
	newAPIWithInvite(t, env, su, "da@example.com")
	w.orgAdmin, w.dataAdmin = webtest.Browser(), webtest.Browser()
	webtest.SignIn(t, w.orgAdmin, env.URL, "oa@acme.example").Body.Close()
	webtest.SignIn(t, w.dataAdmin, env.URL, "da@example.com").Body.Close()
	return w
}

// get answers the page at path for c, failing unless it is 200.
func (w *orgAdminWorld) get(t *testing.T, c *http.Client, path string) *goquery.Document {
	t.Helper()
	resp, doc := page(t, c, w.env.URL+path)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", path, resp.StatusCode)
	}
	return doc
}

func TestOrgAdminLandsOnTheirOrganisation(t *testing.T) {
	w := newOrgAdminWorld(t)
	resp, doc := page(t, w.orgAdmin, w.env.URL+"/")
	if resp.StatusCode != 200 || resp.Request.URL.Path != "/organisations/"+w.acme {
		t.Fatalf("the start page led to %s (%d), want their organisation", resp.Request.URL.Path, resp.StatusCode)
	}
	if got := doc.Find("[data-testid=organisation-name]").Text(); got != "Acme" {
		t.Errorf("landed on %q", got)
	}
	// A Data Administrator's start page is still the dashboard.
	resp, _ = page(t, w.dataAdmin, w.env.URL+"/")
	if resp.Request.URL.Path != "/" {
		t.Errorf("a Data Administrator's start page led to %s", resp.Request.URL.Path)
	}
}

func TestOrgAdminOfSeveralChoosesOne(t *testing.T) {
	w := newOrgAdminWorld(t)
	su := newAPI(t, w.env, "admin@example.com")
	third := su.must(201, "POST", "/organisations", org("Beta"))["OrganisationId"].(string)
	mustInviteOrgAdmin(t, w.env, "two@example.com", w.acme, third)
	c := webtest.Browser()
	webtest.SignIn(t, c, w.env.URL, "two@example.com").Body.Close()
	doc := w.get(t, c, "/")
	var got []string
	doc.Find("[data-testid=org-choice]").Each(func(_ int, s *goquery.Selection) {
		got = append(got, s.Find("[data-testid=org-choice-link]").Text()+" "+s.Find("[data-testid=status]").Text())
	})
	if strings.Join(got, ", ") != "Acme Active, Beta Pending" {
		t.Errorf("the chooser lists %q, want their two organisations by name with their status", got)
	}
	if href, _ := doc.Find("[data-testid=org-choice-audit]").First().Attr("href"); href != "/audit?OrganisationId="+w.acme {
		t.Errorf("Acme's audit log link is %q", href)
	}
	if href, _ := doc.Find("[data-testid=nav-audit]").Attr("href"); href != "/" {
		t.Errorf("the menu's Audit of an administrator of two leads to %q, want the choice", href)
	}
	// Their audit log, without an organisation, is a choice among theirs.
	resp, _ := page(t, c, w.env.URL+"/audit")
	if resp.Request.URL.Path != "/" {
		t.Errorf("/audit led to %s, want the choice", resp.Request.URL)
	}
	doc = w.get(t, c, "/audit?OrganisationId="+third)
	var opts []string
	doc.Find("[data-testid=audit-org] option").Each(func(_ int, s *goquery.Selection) { opts = append(opts, s.Text()) })
	if strings.Join(opts, ",") != "Acme,Beta" || doc.Find("[data-testid=audit-org] option[selected]").Text() != "Beta" {
		t.Errorf("the audit log offers %q, Beta chosen: want their two organisations only", opts)
	}
}

func TestOrgAdminMenu(t *testing.T) {
	w := newOrgAdminWorld(t)
	doc := w.get(t, w.orgAdmin, "/organisations/"+w.acme)
	if href, _ := doc.Find("[data-testid=nav-organisations]").Attr("href"); href != "/organisations/"+w.acme {
		t.Errorf("the menu's organisation leads to %q", href)
	}
	if href, _ := doc.Find("[data-testid=nav-audit]").Attr("href"); href != "/audit?OrganisationId="+w.acme {
		t.Errorf("the menu's Audit leads to %q, want their organisation's records", href)
	}
	if doc.Find("[data-testid=nav-reference-data]").Length() != 0 {
		t.Error("an Organisation Administrator's menu has Reference Data")
	}
	// The quick find finds only their own organisations' things (issue 40).
	if doc.Find("[data-testid=quick-search]").Length() != 1 {
		t.Error("an Organisation Administrator's menu lacks the quick find")
	}
	if doc.Find("[data-testid=nav-api]").Length() != 1 {
		t.Error("the menu lacks the API reference")
	}
	if got := doc.Find(".tf-user").Text(); !strings.Contains(got, "(Organisation Administrator)") {
		t.Errorf("the user reads %q", got)
	}
	doc = w.get(t, w.dataAdmin, "/organisations/"+w.acme)
	if href, _ := doc.Find("[data-testid=nav-audit]").Attr("href"); href != "/audit" {
		t.Errorf("a Data Administrator's Audit leads to %q", href)
	}
	if doc.Find("[data-testid=quick-search]").Length() != 1 {
		t.Error("a Data Administrator lost the quick find")
	}
}

// TestOrgAdminPagesLackWhatTheyMayNotUse: per page, the buttons an
// Organisation Administrator may not use are absent, those they may use
// present, and a Data Administrator's page has both.
func TestOrgAdminPagesLackWhatTheyMayNotUse(t *testing.T) {
	w := newOrgAdminWorld(t)
	o := "/organisations/" + w.acme
	app := o + "/softwarestatements/" + w.app
	for _, c := range []struct {
		path          string
		absent, shown []string // selectors
	}{
		{o, []string{"[data-testid=edit-organisation]", "[data-testid^=set-status-]"}, []string{"[data-testid=history]"}},
		{o + "/documents", []string{"[data-testid=add-document]", "[data-testid=edit-document]"}, []string{"[data-testid=document-row]"}},
		{o + "/certifications", []string{"[data-testid=certification-holders]"}, []string{"[data-testid=org-certification-row]"}},
		{app + "/certifications", []string{"[data-testid=add-certification]", "[data-testid=edit-certification]"}, []string{"[data-testid=certification-row]"}},
		{o + "/authority-claims", []string{"[data-testid=add-claim]", "[data-testid=deactivate-claim]"}, []string{"[data-testid=claim-row]"}},
		{app, nil, []string{"[data-testid=edit-application]", "[data-testid=set-status-Suspended]", "[data-testid=set-status-Withdrawn]", "[data-testid=generate-ssa]"}},
		{o + "/softwarestatements/" + w.gone, []string{"[data-testid=reactivate-link]", "[data-testid=reactivate-note]"}, nil},
		{app + "/edit", []string{"input[type=checkbox][name=Flags]"}, []string{"[data-testid=flags-read-only]", "#f-Status option[value=Suspended]", "#f-Status option[value=Withdrawn]"}},
		{o + "/authorisationservers/" + w.srv + "/edit", []string{"input[type=checkbox][name=Flags]"}, []string{"[data-testid=flags-read-only]", "#f-Status option[value=Withdrawn]"}},
		{o + "/contacts", nil, []string{"[data-testid=new-contact]"}},
		{o + "/softwarestatements", nil, []string{"[data-testid=new-application]"}},
		{o + "/authorisationservers", nil, []string{"[data-testid=new-server]"}},
		{o + "/certificates", nil, []string{"[data-testid=upload-certificate]"}},
		{"/organisations", []string{"[data-testid=new-organisation]", "[data-testid=import-organisations]", "[data-testid=export-csv]", "[data-testid=org-filter]"}, nil},
	} {
		doc := w.get(t, w.orgAdmin, c.path)
		for _, sel := range c.absent {
			if doc.Find(sel).Length() != 0 {
				t.Errorf("%s: an Organisation Administrator's page has %s", c.path, sel)
			}
		}
		for _, sel := range c.shown {
			if doc.Find(sel).Length() == 0 {
				t.Errorf("%s: an Organisation Administrator's page lacks %s", c.path, sel)
			}
		}
		doc = w.get(t, w.dataAdmin, c.path)
		for _, sel := range append(c.absent, c.shown...) {
			if sel == "[data-testid=reactivate-link]" || sel == "[data-testid=flags-read-only]" || sel == "[data-testid=export-csv]" {
				continue // a Super User's; read only for no directory administrator; only with a list
			}
			if doc.Find(sel).Length() == 0 {
				t.Errorf("%s: a Data Administrator's page lacks %s", c.path, sel)
			}
		}
	}
}

// TestOrgAdminFormKeepsFlags: the flags of their application's form are
// read only and sent back as they are, so saving it changes no flag.
func TestOrgAdminFormKeepsFlags(t *testing.T) {
	w := newOrgAdminWorld(t)
	app := "/organisations/" + w.acme + "/softwarestatements/" + w.app
	doc := w.get(t, w.orgAdmin, app+"/edit")
	if got := doc.Find("[data-testid=flags-read-only] .tf-flag").Text(); got != "Sandbox" {
		t.Errorf("the form shows the flags %q", got)
	}
	form := browserForm(doc, app)
	form.Set("Description", "Changed by its organisation")
	resp, err := w.orgAdmin.PostForm(w.env.URL+app, form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Request.URL.Path != app {
		t.Fatalf("saving the form: %d at %s", resp.StatusCode, resp.Request.URL.Path)
	}
	got := newAPI(t, w.env, "admin@example.com").must(200, "GET", app, "")
	if flags, _ := got["Flags"].([]any); len(flags) != 1 || flags[0] != w.flag || got["Description"] != "Changed by its organisation" {
		t.Errorf("after the save: Flags %v, Description %v", got["Flags"], got["Description"])
	}
}

func TestOrgAdminAuditIsTheirOrganisation(t *testing.T) {
	w := newOrgAdminWorld(t)
	resp, doc := page(t, w.orgAdmin, w.env.URL+"/audit?Action=create")
	want := url.Values{"OrganisationId": {w.acme}, "Action": {"create"}}
	if resp.StatusCode != 200 || resp.Request.URL.Path != "/audit" || resp.Request.URL.Query().Encode() != want.Encode() {
		t.Fatalf("/audit led to %s (%d), want their organisation's records", resp.Request.URL, resp.StatusCode)
	}
	if doc.Find("[data-testid=audit-filter] input[name=OrganisationId]:not([type=hidden])").Length() != 0 {
		t.Error("the audit log offers to type another organisation")
	}
	if v, _ := doc.Find("[data-testid=audit-filter] input[type=hidden][name=OrganisationId]").Attr("value"); v != w.acme {
		t.Errorf("the filter keeps the organisation %q", v)
	}
	if got := doc.Find("[data-testid=audit-of]").Text(); got != "The records of Acme." {
		t.Errorf("the audit log says %q", got)
	}
	doc = w.get(t, w.dataAdmin, "/audit")
	if doc.Find("[data-testid=audit-filter] input[name=OrganisationId]:not([type=hidden])").Length() != 1 {
		t.Error("a Data Administrator's audit log lost the organisation filter")
	}
}
