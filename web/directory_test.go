package web_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

func TestOrganisationsAPI(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	resp, o := a.do("POST", "/organisations", org("Acme Bank"))
	if resp.StatusCode != 201 || o["Status"] != "Pending" || resp.Header.Get("ETag") == "" || resp.Header.Get("Location") != "/api/organisations/"+o["OrganisationId"].(string) {
		t.Fatalf("create: %d %v %v", resp.StatusCode, resp.Header, o)
	}
	id := o["OrganisationId"].(string)
	etag := resp.Header.Get("ETag")
	got := a.must(200, "GET", "/organisations/"+id, "")
	if got["OrganisationName"] != "Acme Bank" || got["CountryOfRegistration"] != "GB" {
		t.Fatal(got)
	}
	// Whole-resource PUT with the ETag it was read with.
	upd := strings.Replace(org("Acme Bank"), `"Acme Bank"`, `"Acme Bank plc"`, 1)
	upd = strings.TrimSuffix(upd, "}") + `,"Status":"Active"}`
	if r, m := a.do("PUT", "/organisations/"+id, upd, "If-Match", etag); r.StatusCode != 200 || m["OrganisationName"] != "Acme Bank plc" || m["Status"] != "Active" {
		t.Fatalf("update: %d %v", r.StatusCode, m)
	}
	if r, _ := a.do("PUT", "/organisations/"+id, upd, "If-Match", etag); r.StatusCode != 412 {
		t.Fatalf("stale If-Match: %d", r.StatusCode)
	}
	// A client may choose the id.
	own := "0f8fad5b-d9cb-469f-a165-70867728950e"
	a.must(201, "POST", "/organisations", strings.TrimSuffix(org("Own Id"), "}")+`,"OrganisationId":"`+own+`"}`)
	a.must(409, "POST", "/organisations", strings.TrimSuffix(org("Own Id 2"), "}")+`,"OrganisationId":"`+own+`"}`)
	a.must(404, "GET", "/organisations/00000000-0000-4000-8000-000000000000", "")

	bad := []struct{ body, field string }{
		{`{"RegistrationNumber":"1","CountryOfRegistration":"GB"}`, "OrganisationName"},
		{`{"OrganisationName":"x","CountryOfRegistration":"GB"}`, "RegistrationNumber"},
		{`{"OrganisationName":"x","RegistrationNumber":"1","CountryOfRegistration":"gb"}`, "CountryOfRegistration"},
		{`{"OrganisationName":"x","RegistrationNumber":"1","CountryOfRegistration":"GBR"}`, "CountryOfRegistration"},
		{`{"OrganisationName":"x","RegistrationNumber":"1","CountryOfRegistration":"ZZ"}`, "CountryOfRegistration"},
		{`{"OrganisationName":"x","RegistrationNumber":"1","CountryOfRegistration":"UK"}`, "CountryOfRegistration"},
		{`{"OrganisationName":"x","RegistrationNumber":"1","CountryOfRegistration":"GB","Status":"Suspended"}`, "Status"},
		{`{"OrganisationName":"x","RegistrationNumber":"1","CountryOfRegistration":"GB","OrganisationId":"abc"}`, "OrganisationId"},
		{`{"OrganisationName":"x","RegistrationNumber":"1","CountryOfRegistration":"GB","Flags":["00000000-0000-4000-8000-000000000000"]}`, "Flags"},
		{`{"OrganisationName":"` + strings.Repeat("x", 201) + `","RegistrationNumber":"1","CountryOfRegistration":"GB"}`, "OrganisationName"},
	}
	for _, b := range bad {
		r, m := a.do("POST", "/organisations", b.body)
		if r.StatusCode != 422 || fieldsOf(m)[b.field] == "" {
			t.Errorf("%s: %d %v", b.body, r.StatusCode, m)
		}
	}
	if r, _ := a.do("POST", "/organisations", `{"OrganisationName":"x","Nickname":"y"}`); r.StatusCode != 400 {
		t.Fatalf("unknown field: %d", r.StatusCode)
	}
	env2 := a.must(200, "GET", "/organisations", "")
	if env2["totalSize"].(float64) != 2 {
		t.Fatalf("refused creates changed the list: %v", env2["totalSize"])
	}
}

// TestStatusVocabularyMatrix: under both settings, input accepts Withdrawn
// and Inactive alike (bodies and filters) and output uses the word in force.
func TestStatusVocabularyMatrix(t *testing.T) {
	for _, vocab := range []string{"withdrawn", "inactive"} {
		t.Run(vocab, func(t *testing.T) {
			env := webtest.Start(t, func(c *web.Config) { c.StatusVocabulary = vocab })
			a := newAPI(t, env, "admin@example.com")
			end := map[string]string{"withdrawn": "Withdrawn", "inactive": "Inactive"}[vocab]
			for _, in := range []string{"Withdrawn", "Inactive"} {
				o := a.must(201, "POST", "/organisations", strings.TrimSuffix(org("Org "+in), "}")+`,"Status":"`+in+`"}`)
				if o["Status"] != end {
					t.Fatalf("input %s shown as %v", in, o["Status"])
				}
				// Leaving the end state needs a reason (TestReactivation).
				if r, m := a.do("PUT", "/organisations/"+o["OrganisationId"].(string), strings.TrimSuffix(org("Org "+in), "}")+`,"Status":"Active"}`); r.StatusCode != 422 {
					t.Fatalf("left the end state: %d %v", r.StatusCode, m)
				}
				id := o["OrganisationId"].(string)
				app := a.must(201, "POST", "/organisations/"+id+"/softwarestatements", `{"ClientName":"App","Status":"`+in+`"}`)
				if app["Status"] != end {
					t.Fatalf("application %s shown as %v", in, app["Status"])
				}
			}
			a.must(201, "POST", "/organisations", strings.TrimSuffix(org("Live"), "}")+`,"Status":"Active"}`)
			for _, filter := range []string{"Withdrawn", "Inactive"} {
				l := a.must(200, "GET", "/organisations?Status="+filter, "")
				if l["totalSize"].(float64) != 2 {
					t.Fatalf("filter %s: %v", filter, l["totalSize"])
				}
				for _, it := range l["content"].([]any) {
					if it.(map[string]any)["Status"] != end {
						t.Fatalf("filter %s returned %v", filter, it)
					}
				}
			}
			if r, _ := a.do("GET", "/organisations?Status=Deleted", ""); r.StatusCode != 400 {
				t.Fatalf("unknown status filter: %d", r.StatusCode)
			}
			if l := a.must(200, "GET", "/organisations?Status=Active", ""); l["totalSize"].(float64) != 1 {
				t.Fatalf("Active filter: %v", l["totalSize"])
			}
			// The page's status filter uses the word in force, and only the API
			// documentation explains the synonym (no developer note on pages).
			c := webtest.Browser()
			webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
			_, doc := page(t, c, env.URL+"/organisations")
			opts := doc.Find("#status-filter option").Text()
			other := map[string]string{"withdrawn": "Inactive", "inactive": "Withdrawn"}[vocab]
			if !strings.Contains(opts, end) || strings.Contains(opts, other) {
				t.Fatalf("status filter %q", opts)
			}
			if doc.Find("[data-testid=status-vocabulary]").Length() != 0 {
				t.Fatal("the list still carries the status-vocabulary note")
			}
		})
	}
}

func TestOrganisationListPagingSortSearchAndFlags(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	flag := a.must(201, "POST", "/references/flags", `{"Name":"Sandbox","Type":"Organisation"}`)
	fid := flag["FlagId"].(string)
	asFlag := a.must(201, "POST", "/references/flags", `{"Name":"Test AS","Type":"Authorisation_Server"}`)
	for i := 0; i < 25; i++ {
		body := fmt.Sprintf(`{"OrganisationName":"Org %02d","RegistrationNumber":"R%02d","CountryOfRegistration":"%s"}`, i, 24-i, []string{"GB", "BR"}[i%2])
		if i < 3 {
			body = strings.TrimSuffix(body, "}") + `,"Flags":["` + fid + `"]}`
		}
		a.must(201, "POST", "/organisations", body)
	}
	if r, m := a.do("POST", "/organisations", strings.TrimSuffix(org("Wrong flag"), "}")+`,"Flags":["`+asFlag["FlagId"].(string)+`"]}`); r.StatusCode != 422 || !strings.Contains(fieldsOf(m)["Flags"], "applies to Authorisation_Server") {
		t.Fatalf("flag of another type: %d %v", r.StatusCode, m)
	}
	p0 := a.must(200, "GET", "/organisations?size=10", "")
	if p0["totalSize"].(float64) != 25 || p0["totalPages"].(float64) != 3 || p0["numberOfElements"].(float64) != 10 || p0["empty"] != false {
		t.Fatalf("page 0: %v", p0)
	}
	if beyond := a.must(200, "GET", "/organisations?size=10&page=9999999", ""); beyond["empty"] != true || beyond["totalSize"].(float64) != 25 {
		t.Fatalf("a page past the end: %v", beyond)
	}
	p2 := a.must(200, "GET", "/organisations?size=10&page=2", "")
	if p2["numberOfElements"].(float64) != 5 || p2["content"].([]any)[0].(map[string]any)["OrganisationName"] != "Org 20" {
		t.Fatalf("page 2: %v", p2)
	}
	desc := a.must(200, "GET", "/organisations?sort=RegistrationNumber,desc&size=1", "")
	if desc["content"].([]any)[0].(map[string]any)["RegistrationNumber"] != "R24" {
		t.Fatalf("sort: %v", desc["content"])
	}
	search := a.must(200, "GET", "/organisations?q=r07", "")
	if search["totalSize"].(float64) != 1 || search["content"].([]any)[0].(map[string]any)["OrganisationName"] != "Org 17" {
		t.Fatalf("search by registration number: %v", search)
	}
	if s := a.must(200, "GET", "/organisations?q=org%201", ""); s["totalSize"].(float64) != 10 {
		t.Fatalf("search by name: %v", s["totalSize"])
	}
	flagged := a.must(200, "GET", "/organisations?Flag="+fid, "")
	if flagged["totalSize"].(float64) != 3 {
		t.Fatalf("flag filter: %v", flagged["totalSize"])
	}
	for _, bad := range []string{"?sort=Nope,asc", "?sort=OrganisationName,sideways", "?page=-1", "?size=0", "?size=201", "?page=x", "?page=9223372036854775807"} {
		if r, _ := a.do("GET", "/organisations"+bad, ""); r.StatusCode != 400 {
			t.Errorf("%s: %d", bad, r.StatusCode)
		}
	}
	// The page keeps filters in the URL; sort links go back to page 0.
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc := page(t, c, env.URL+"/organisations?q=Org&Status=Pending&page=1&size=10")
	href, _ := doc.Find("[data-testid=sort-RegistrationNumber]").Attr("href")
	if !strings.Contains(href, "q=Org") || !strings.Contains(href, "Status=Pending") || strings.Contains(href, "page=") || !strings.Contains(href, "sort=RegistrationNumber%2Casc") {
		t.Fatalf("sort link %q", href)
	}
	if got := doc.Find("[data-testid=org-count]").Text(); !strings.Contains(got, "25") {
		t.Fatalf("count %q", got)
	}
	if doc.Find("[data-testid=organisation-row]").Length() != 10 {
		t.Fatalf("rows %d", doc.Find("[data-testid=organisation-row]").Length())
	}
}

func TestContactsAndContactTypes(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	id := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	c1 := a.must(201, "POST", "/organisations/"+id+"/contacts", `{"ContactType":"Technical","FirstName":"Tom","LastName":"Adams","EmailAddress":"tom@acme.example"}`)
	a.must(201, "POST", "/organisations/"+id+"/contacts", `{"ContactType":"Billing","FirstName":"Bea","LastName":"Zane","EmailAddress":"bea@acme.example"}`)
	byType := a.must(200, "GET", "/organisations/"+id+"/contacts?sort=ContactType,asc", "")
	if byType["content"].([]any)[0].(map[string]any)["ContactType"] != "Billing" {
		t.Fatalf("sort by type: %v", byType["content"])
	}
	byTypeDesc := a.must(200, "GET", "/organisations/"+id+"/contacts?sort=ContactType,desc", "")
	if byTypeDesc["content"].([]any)[0].(map[string]any)["ContactType"] != "Technical" {
		t.Fatalf("sort by type desc: %v", byTypeDesc["content"])
	}
	for body, field := range map[string]string{
		`{"ContactType":"Astrology","LastName":"X","EmailAddress":"x@acme.example"}`: "ContactType",
		`{"ContactType":"Billing","LastName":"X","EmailAddress":"nope"}`:             "EmailAddress",
		`{"ContactType":"Billing","EmailAddress":"x@acme.example"}`:                  "LastName",
	} {
		if r, m := a.do("POST", "/organisations/"+id+"/contacts", body); r.StatusCode != 422 || fieldsOf(m)[field] == "" {
			t.Errorf("%s: %d %v", body, r.StatusCode, m)
		}
	}
	// A contact type in use cannot be deleted; the message names what is in the way.
	r, m := a.do("DELETE", "/references/contact-types/Billing", "")
	msg := m["errors"].([]any)[0].(map[string]any)["message"].(string)
	summary, payload, ok := strings.Cut(msg, "|")
	if r.StatusCode != 409 || !ok || !strings.Contains(summary, `"Billing" is in use`) || !strings.Contains(payload, `"Contacts":[`) || !strings.Contains(payload, "Bea Zane") {
		t.Fatalf("delete in use: %d %q", r.StatusCode, msg)
	}
	a.must(201, "POST", "/references/contact-types", `{"Name":"Legal","Description":"Legal contact"}`)
	a.must(409, "POST", "/references/contact-types", `{"Name":"Legal"}`)
	if r, _ := a.do("DELETE", "/references/contact-types/Legal", ""); r.StatusCode != 204 {
		t.Fatalf("delete unused: %d", r.StatusCode)
	}
	a.must(404, "DELETE", "/references/contact-types/Legal", "")
	// Update and delete a contact.
	cid := c1["ContactId"].(string)
	a.must(200, "PUT", "/organisations/"+id+"/contacts/"+cid, `{"ContactType":"Security","FirstName":"Tom","LastName":"Adams","EmailAddress":"tom@acme.example"}`)
	if r, _ := a.do("DELETE", "/organisations/"+id+"/contacts/"+cid, ""); r.StatusCode != 204 {
		t.Fatalf("delete contact: %d", r.StatusCode)
	}
	a.must(404, "GET", "/organisations/"+id+"/contacts/"+cid, "")

	// The web page lists what is in the way.
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.PostForm(env.URL+"/references/contact-types/Billing/delete", nil)
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	if resp.StatusCode != 409 || !strings.Contains(doc.Find("[data-testid=conflict]").Text(), "is in use") || !strings.Contains(doc.Find("[data-testid=in-the-way]").Text(), "Bea Zane") {
		t.Fatalf("conflict page: %d %q", resp.StatusCode, doc.Find("[data-testid=conflict]").Text())
	}
	// Data Administrators manage contacts but not contact types.
	dana := newAPIWithInvite(t, env, a, "dana@example.com")
	dana.must(201, "POST", "/organisations/"+id+"/contacts", `{"ContactType":"Business","LastName":"Doe","EmailAddress":"doe@acme.example"}`)
	dana.must(403, "POST", "/references/contact-types", `{"Name":"Other"}`)
	dana.must(403, "GET", "/references/flags", "")
}

func TestContactsSortWithHTMXFragmentAndWithoutJavaScript(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	id := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	a.must(201, "POST", "/organisations/"+id+"/contacts", `{"ContactType":"Technical","LastName":"Adams","EmailAddress":"t@acme.example"}`)
	a.must(201, "POST", "/organisations/"+id+"/contacts", `{"ContactType":"Billing","LastName":"Zane","EmailAddress":"b@acme.example"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	// Without JavaScript: a plain link, a full page.
	_, doc := page(t, c, env.URL+"/organisations/"+id+"/contacts?sort=ContactType,desc")
	if doc.Find("html").Length() == 0 || doc.Find("[data-testid=contact-type]").First().Text() != "Technical" {
		t.Fatal("full page sorted by URL")
	}
	hx, _ := doc.Find("[data-testid=sort-ContactType]").Attr("hx-get")
	if !strings.Contains(hx, "sort=ContactType%2Casc") {
		t.Fatalf("hx-get %q", hx)
	}
	// With htmx: the fragment only.
	req, _ := http.NewRequest("GET", env.URL+hx, nil)
	req.Header.Set("HX-Request", "true")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	frag := docOf(t, resp)
	if frag.Find("html body header").Length() != 0 || frag.Find("#contacts-table").Length() != 1 || frag.Find("[data-testid=contact-type]").First().Text() != "Billing" {
		t.Fatalf("fragment: %q", frag.Text())
	}
}

func TestAuthorisationServerIssuerValidation(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	id := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	good := discoveryServer(t, func(self string) string { return self })
	liar := discoveryServer(t, func(string) string { return "https://other.example" })
	notJSON := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>")) }))
	t.Cleanup(notJSON.Close)
	path := "/organisations/" + id + "/authorisationservers"
	s := a.must(201, "POST", path, `{"CustomerFriendlyName":"Main","Issuer":"`+good+`"}`)
	if s["OpenIDDiscoveryDocument"] != good+"/.well-known/openid-configuration" || s["Status"] != "Active" {
		t.Fatal(s)
	}
	cases := map[string]struct{ body, want string }{
		"unreachable or not JSON":   {`{"CustomerFriendlyName":"X","Issuer":"` + notJSON.URL + `"}`, "not JSON"},
		"duplicate issuer":          {`{"CustomerFriendlyName":"X","Issuer":"` + good + `"}`, "already has this issuer"},
		"issuer mismatch":           {`{"CustomerFriendlyName":"X","Issuer":"` + liar + `"}`, "names issuer"},
		"document not under issuer": {`{"CustomerFriendlyName":"X","Issuer":"` + liar + `","OpenIDDiscoveryDocument":"` + good + `/.well-known/openid-configuration"}`, "does not start with the issuer"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r, m := a.do("POST", path, c.body)
			errs := m["errors"].([]any)
			found := false
			for _, e := range errs {
				em := e.(map[string]any)
				if em["field"] == "Issuer" && strings.Contains(em["message"].(string), c.want) {
					found = true
				}
			}
			if r.StatusCode != 422 || !found {
				t.Fatalf("%d %v", r.StatusCode, m)
			}
		})
	}
	// Two problems at once: two entries on Issuer.
	_, m := a.do("POST", path, `{"CustomerFriendlyName":"X","Issuer":"`+liar+`","OpenIDDiscoveryDocument":"`+good+`/.well-known/openid-configuration"}`)
	n := 0
	for _, e := range m["errors"].([]any) {
		if e.(map[string]any)["field"] == "Issuer" {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("want two Issuer entries: %v", m["errors"])
	}
	// Edit re-validates; the server keeps its own issuer.
	sid := s["AuthorisationServerId"].(string)
	a.must(200, "PUT", path+"/"+sid, `{"CustomerFriendlyName":"Main 2","Status":"Active","Issuer":"`+good+`"}`)
	a.must(422, "PUT", path+"/"+sid, `{"CustomerFriendlyName":"Main 2","Status":"Active","Issuer":"`+liar+`"}`)
	got := a.must(200, "GET", path+"/"+sid, "")
	if got["Issuer"] != good || got["CustomerFriendlyName"] != "Main 2" {
		t.Fatalf("a refused edit changed the server: %v", got)
	}
	list := a.must(200, "GET", path, "")
	if len(list["list"].([]any)) != 1 {
		t.Fatalf("list %v", list)
	}
}

func TestPrivateIssuerRefusedWhenNotAllowed(t *testing.T) {
	no := false
	env := webtest.Start(t, func(c *web.Config) { c.AllowPrivateIssuerURLs = &no })
	a := newAPI(t, env, "admin@example.com")
	id := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	good := discoveryServer(t, func(self string) string { return self })
	if r, m := a.do("POST", "/organisations/"+id+"/authorisationservers", `{"CustomerFriendlyName":"X","Issuer":"`+good+`"}`); r.StatusCode != 422 || fieldsOf(m)["Issuer"] == "" {
		t.Fatalf("loopback issuer accepted: %d %v", r.StatusCode, m)
	}
}

func TestApplicationsCIBAAndOrigins(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	id := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	path := "/organisations/" + id + "/softwarestatements"
	ok := []string{
		`{"ClientName":"No CIBA"}`,
		`{"ClientName":"Poll","backchannel_token_delivery_mode":"poll"}`,
		`{"ClientName":"Push","backchannel_token_delivery_mode":"push","backchannel_client_notification_endpoint":"https://tpp.example/ciba"}`,
		`{"ClientName":"Ping","backchannel_token_delivery_mode":"ping","backchannel_client_notification_endpoint":"https://tpp.example/ciba","software_origins_uri":["https://tpp.example","https://pay.tpp.example:8443"]}`,
	}
	for _, b := range ok {
		a.must(201, "POST", path, b)
	}
	bad := map[string]string{
		`{"ClientName":"X","backchannel_token_delivery_mode":"ping"}`:                                                                 "backchannel_client_notification_endpoint",
		`{"ClientName":"X","backchannel_token_delivery_mode":"push"}`:                                                                 "backchannel_client_notification_endpoint",
		`{"ClientName":"X","backchannel_token_delivery_mode":"push","backchannel_client_notification_endpoint":"http://tpp.example"}`: "backchannel_client_notification_endpoint",
		`{"ClientName":"X","backchannel_token_delivery_mode":"smoke"}`:                                                                "backchannel_token_delivery_mode",
		`{"ClientName":"X","software_origins_uri":["https://tpp.example/path"]}`:                                                      "software_origins_uri",
		`{"ClientName":"X","software_origins_uri":["http://tpp.example"]}`:                                                            "software_origins_uri",
		`{"ClientName":"X","RedirectUri":["http://tpp.example/cb"]}`:                                                                  "RedirectUri",
		`{"ClientName":"X","Status":"Pending"}`:                                                                                       "Status",
		`{"backchannel_token_delivery_mode":"poll"}`:                                                                                  "ClientName",
	}
	for b, field := range bad {
		if r, m := a.do("POST", path, b); r.StatusCode != 422 || fieldsOf(m)[field] == "" {
			t.Errorf("%s: %d %v", b, r.StatusCode, m)
		}
	}
	// An existing application without the endpoint stays valid and editable.
	app := a.must(201, "POST", path, `{"ClientName":"Legacy"}`)
	aid := app["SoftwareStatementId"].(string)
	a.must(200, "PUT", path+"/"+aid, `{"ClientName":"Legacy 2","Status":"Suspended"}`)
	a.must(200, "PUT", path+"/"+aid, `{"ClientName":"Legacy 2","Status":"Active"}`)
	a.must(200, "PUT", path+"/"+aid, `{"ClientName":"Legacy 2","Status":"Withdrawn"}`)
	a.must(422, "PUT", path+"/"+aid, `{"ClientName":"Legacy 2","Status":"Active"}`) // leaving the end state needs a StatusReason
	if l := a.must(200, "GET", path, ""); len(l["list"].([]any)) != 5 {
		t.Fatalf("list: %v", l)
	}
}

func TestParticipantsIsPublic(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	good := discoveryServer(t, func(self string) string { return self })
	good2 := discoveryServer(t, func(self string) string { return self })
	live := a.must(201, "POST", "/organisations", strings.TrimSuffix(org("Live"), "}")+`,"Status":"Active"}`)["OrganisationId"].(string)
	a.must(201, "POST", "/organisations", org("Pending"))
	a.must(201, "POST", "/organisations/"+live+"/authorisationservers", `{"CustomerFriendlyName":"On","Issuer":"`+good+`"}`)
	a.must(201, "POST", "/organisations/"+live+"/authorisationservers", `{"CustomerFriendlyName":"Off","Issuer":"`+good2+`","Status":"Inactive"}`)
	resp, err := http.Get(env.URL + "/api/participants")
	if err != nil {
		t.Fatal(err)
	}
	var ps []map[string]any
	json.NewDecoder(resp.Body).Decode(&ps)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(ps) != 1 || ps[0]["OrganisationName"] != "Live" {
		t.Fatalf("%d %v", resp.StatusCode, ps)
	}
	servers := ps[0]["AuthorisationServers"].([]any)
	if len(servers) != 1 || servers[0].(map[string]any)["CustomerFriendlyName"] != "On" {
		t.Fatalf("servers %v", servers)
	}
}

func TestDirectoryAuditHasBeforeAndAfter(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	id := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	a.must(200, "PUT", "/organisations/"+id, strings.TrimSuffix(org("Acme Two"), "}")+`,"Status":"Active"}`)
	l := a.must(200, "GET", "/audit?OrganisationId="+id, "")
	recs := l["content"].([]any)
	last := recs[0].(map[string]any)
	if len(recs) != 2 || last["Action"] != "status" || !strings.Contains(last["Summary"].(string), "OrganisationName: Acme -> Acme Two") || !strings.Contains(last["Summary"].(string), "Status: Pending -> Active") {
		t.Fatalf("%v", recs)
	}
}

func TestFlagsReferenceData(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	f := a.must(201, "POST", "/references/flags", `{"Name":"Sandbox","Description":"Test participant","Type":"Software_Statement"}`)
	id := f["FlagId"].(string)
	a.must(422, "POST", "/references/flags", `{"Name":"Sandbox","Type":"Software_Statement"}`)
	a.must(201, "POST", "/references/flags", `{"Name":"Sandbox","Type":"Organisation"}`)
	a.must(422, "POST", "/references/flags", `{"Name":"X","Type":"Contact"}`)
	a.must(422, "POST", "/references/flags", `{"Type":"Organisation"}`)
	a.must(422, "POST", "/references/flags", `{"Name":"Y","Type":"Organisation","Status":"Retired"}`)
	if l := a.must(200, "GET", "/references/flags?Type=Software_Statement", ""); len(l["list"].([]any)) != 1 {
		t.Fatalf("type filter: %v", l)
	}
	a.must(400, "GET", "/references/flags?Type=Nope", "")
	a.must(422, "PUT", "/references/flags/"+id, `{"Name":"Sandbox","Type":"Organisation"}`)
	upd := a.must(200, "PUT", "/references/flags/"+id, `{"Name":"Sandbox app","Type":"Software_Statement","Status":"Inactive"}`)
	if upd["Status"] != "Inactive" || upd["Name"] != "Sandbox app" {
		t.Fatal(upd)
	}
	a.must(404, "GET", "/references/flags/00000000-0000-4000-8000-000000000000", "")
	// An Inactive flag cannot be newly attached.
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	if r, m := a.do("POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"App","Flags":["`+id+`"]}`); r.StatusCode != 422 || !strings.Contains(fieldsOf(m)["Flags"], "Inactive") {
		t.Fatalf("%d %v", r.StatusCode, m)
	}
}

// TestSortSelectOnTheLists: the organisation list and the contacts tab
// offer a "Sort by" select (for a phone, where the heading row with the
// sort links is hidden): labelled, every column link's sort key in both
// directions, the current sort selected, the only field named sort in its
// form (a second would be refused). What it sends sorts the list; a bad
// value is still refused.
func TestSortSelectOnTheLists(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	id := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	a.must(201, "POST", "/organisations", org("Zenith"))
	a.must(201, "POST", "/organisations/"+id+"/contacts", `{"ContactType":"Technical","LastName":"Adams","EmailAddress":"t@acme.example"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	check := func(u, form, id, want string, keys []string) *goquery.Document {
		t.Helper()
		resp, doc := page(t, c, env.URL+u)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d", u, resp.StatusCode)
		}
		sel := doc.Find(form + ` select[name=sort]`)
		if sel.Length() != 1 || doc.Find(form+` [name=sort]`).Length() != 1 {
			t.Fatalf("%s: %d sort selects, %d fields named sort", u, sel.Length(), doc.Find(form+` [name=sort]`).Length())
		}
		if sid, _ := sel.Attr("id"); sid != id || strings.TrimSpace(doc.Find(`label[for=`+id+`]`).Text()) == "" {
			t.Fatalf("%s: the select %q has no label", u, sid)
		}
		var got []string
		sel.Find("option").Each(func(_ int, o *goquery.Selection) { v, _ := o.Attr("value"); got = append(got, v) })
		if strings.Join(got, " ") != strings.Join(keys, " ") {
			t.Fatalf("%s: options %q, want %q", u, got, keys)
		}
		if v, ok := sel.Find("option[selected]").Attr("value"); !ok || v != want || sel.Find("option[selected]").Length() != 1 {
			t.Fatalf("%s: selected %q (%v), want %q", u, v, ok, want)
		}
		return doc
	}
	orgKeys := []string{"", "OrganisationName,desc", "RegistrationNumber,asc", "RegistrationNumber,desc", "CountryOfRegistration,asc", "CountryOfRegistration,desc", "Status,asc", "Status,desc", "CreatedOn,asc", "CreatedOn,desc"}
	check("/organisations", "[data-testid=org-filter]", "sort-by", "", orgKeys)
	check("/organisations?sort=OrganisationName,asc", "[data-testid=org-filter]", "sort-by", "", orgKeys)
	// What the form sends with the select changed: the list in that order.
	doc := check("/organisations?q=&Status=&Flag=&sort=OrganisationName%2Cdesc", "[data-testid=org-filter]", "sort-by", "OrganisationName,desc", orgKeys)
	if first := doc.Find("[data-testid=organisation-row] td").First().Text(); first != "Zenith" {
		t.Fatalf("sorted Z to A, first row %q", first)
	}
	// Every option the select offers is a sort the list accepts.
	for _, k := range orgKeys {
		check("/organisations?sort="+url.QueryEscape(k), "[data-testid=org-filter]", "sort-by", k, orgKeys)
	}
	contactKeys := []string{"ContactType,asc", "ContactType,desc", "FirstName,asc", "FirstName,desc", "", "LastName,desc", "EmailAddress,asc", "EmailAddress,desc", "PhoneNumber,asc", "PhoneNumber,desc"}
	contacts := "/organisations/" + id + "/contacts"
	check(contacts, "[data-testid=contacts-sort]", "contact-sort-by", "", contactKeys)
	doc = check(contacts+"?sort=EmailAddress%2Cdesc", "[data-testid=contacts-sort]", "contact-sort-by", "EmailAddress,desc", contactKeys)
	if act, _ := doc.Find("[data-testid=contacts-sort]").Attr("action"); act != contacts {
		t.Fatalf("contacts sort form action %q", act)
	}
	// A bad sort is refused as before, on both lists.
	for _, u := range []string{"/organisations?sort=Nope,asc", "/organisations?sort=OrganisationName,up", contacts + "?sort=Nope,asc", contacts + "?sort=LastName,up"} {
		if resp, _ := page(t, c, env.URL+u); resp.StatusCode != 400 {
			t.Errorf("%s: %d, want 400", u, resp.StatusCode)
		}
	}
}

func TestFilterFormKeepsTheSort(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc := page(t, c, env.URL+"/organisations?sort=CreatedOn,desc&page=3")
	v, ok := doc.Find(`[data-testid=org-filter] [name=sort] option[selected]`).Attr("value")
	if !ok || v != "CreatedOn,desc" {
		t.Fatalf("sort in the filter form: %q", v)
	}
	if doc.Find(`[data-testid=org-filter] input[name=page]`).Length() != 0 {
		t.Fatal("a filter change must go back to the first page")
	}
}

// The participants list is built once per change of the directory: the
// same ETag until something changes, 304 for If-None-Match, gzip on request.
func TestParticipantsCachedWithETagAndGzip(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	a.must(201, "POST", "/organisations", strings.TrimSuffix(org("Live"), "}")+`,"Status":"Active"}`)
	get := func(hdr ...string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", env.URL+"/api/participants", nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultTransport.RoundTrip(req) // no transparent gzip
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	r1, plain := get()
	etag := r1.Header.Get("ETag")
	if r1.StatusCode != 200 || etag == "" || r1.Header.Get("Content-Encoding") != "" || !strings.Contains(string(plain), `"Live"`) {
		t.Fatalf("plain: %d %v %s", r1.StatusCode, r1.Header, plain)
	}
	r2, zipped := get("Accept-Encoding", "gzip")
	zr, err := gzip.NewReader(bytes.NewReader(zipped))
	if err != nil || r2.Header.Get("Content-Encoding") != "gzip" || r2.Header.Get("ETag") != etag {
		t.Fatalf("gzip: %v %v", err, r2.Header)
	}
	unzipped, _ := io.ReadAll(zr)
	if !bytes.Equal(unzipped, plain) {
		t.Fatal("the gzipped answer differs from the plain one")
	}
	if r3, body := get("If-None-Match", etag); r3.StatusCode != 304 || len(body) != 0 {
		t.Fatalf("If-None-Match: %d %q", r3.StatusCode, body)
	}
	if r1.Header.Get("Last-Modified") == "" {
		t.Fatal("no Last-Modified")
	}
	// A change to the directory: the request that finds the list stale is
	// served the previous list (no waiting for the rebuild), which is then
	// rebuilt in the background and served under a new ETag.
	a.must(201, "POST", "/organisations", strings.TrimSuffix(org("Newco"), "}")+`,"Status":"Active"}`)
	if r4, _ := get("If-None-Match", etag); r4.StatusCode != 304 {
		t.Fatalf("the first request after a change: %d, want the previous list (304)", r4.StatusCode)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		r5, body := get("If-None-Match", etag)
		if r5.StatusCode == 200 {
			if r5.Header.Get("ETag") == etag || !strings.Contains(string(body), `"Newco"`) {
				t.Fatalf("after the rebuild: %s %s", r5.Header.Get("ETag"), body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the list was never rebuilt after the change")
		}
	}
}
