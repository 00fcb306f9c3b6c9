package web_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/web/webtest"
)

// TestContactEmailNeedsADottedDomain: a contact's e-mail address whose
// domain has no dot, or ends with one, is refused naming the member (API)
// or beside the field (console); a contact saved before the rule with such
// an address is still read.
func TestContactEmailNeedsADottedDomain(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	path := "/organisations/" + oid + "/contacts"
	for _, email := range []string{"a@b", "ann@localhost", "ann@acme.example.", "ann@example."} {
		r, p := a.do("POST", path, `{"ContactType":"Technical","LastName":"Lee","EmailAddress":"`+email+`"}`)
		if r.StatusCode != http.StatusUnprocessableEntity || fieldsOf(p)["EmailAddress"] == "" {
			t.Errorf("%s: %d %v, want 422 naming EmailAddress", email, r.StatusCode, p)
		}
	}
	if l := a.must(200, "GET", path, ""); l["totalSize"] != 0.0 {
		t.Fatalf("contacts created despite the refusal: %v", l["totalSize"])
	}
	a.must(201, "POST", path, `{"ContactType":"Technical","LastName":"Lee","EmailAddress":"ann@acme.example"}`)
	// A contact saved before the rule is still read as it is.
	old, err := env.DB.CreateContact(context.Background(), store.Audit{Actor: "admin@example.com"}, store.Contact{OrganisationID: oid, ContactType: "Technical", LastName: "Old", EmailAddress: "old@intranet"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.must(200, "GET", path+"/"+old.ContactID, ""); got["EmailAddress"] != "old@intranet" {
		t.Fatalf("an old contact: %v", got)
	}
	if l := a.must(200, "GET", path, ""); l["totalSize"] != 2.0 {
		t.Fatalf("contacts: %v", l)
	}

	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.PostForm(env.URL+"/organisations/"+oid+"/contacts", url.Values{"ContactType": {"Technical"}, "LastName": {"Lee"}, "EmailAddress": {"bo@b"}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	doc := htmlDoc(t, body)
	msgID, _ := doc.Find("#f-EmailAddress").Attr("aria-describedby")
	if msg := doc.Find("#" + msgID).Text(); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(msg, "dot") {
		t.Fatalf("form: %d, message beside the field %q", resp.StatusCode, msg)
	}
}

// TestContactFormBreadcrumbSaysWhich: the contact form's breadcrumb ends
// with what its heading says (Add contact, Edit contact), under a link to
// the organisation's Contacts tab.
func TestContactFormBreadcrumbSaysWhich(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	cid := a.must(201, "POST", "/organisations/"+oid+"/contacts", `{"ContactType":"Technical","LastName":"Adams","EmailAddress":"tom@acme.example"}`)["ContactId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	for path, want := range map[string]string{"/contacts/new": "Add contact", "/contacts/" + cid + "/edit": "Edit contact"} {
		_, doc := page(t, c, env.URL+"/organisations/"+oid+path)
		crumbs := doc.Find(`nav[aria-label=breadcrumb] li`)
		last := strings.TrimSpace(crumbs.Last().Text())
		tab, _ := crumbs.Eq(crumbs.Length() - 2).Find("a").Attr("href")
		if h1 := strings.TrimSpace(doc.Find("h1").Last().Text()); h1 != want || last != want || !strings.HasSuffix(tab, "/contacts") {
			t.Errorf("%s: heading %q, breadcrumb ends %q under %q; want %q under the Contacts tab", path, h1, last, tab, want)
		}
	}
}

// A contact for an organisation that does not exist is 404 naming the
// organisation, even with fields that need attention, and writes nothing.
func TestContactInAMissingOrganisationIsNotFound(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	before := auditTotal(a)
	for _, body := range []string{
		`{"ContactType":"Technical","LastName":"Lovelace","EmailAddress":"ada@example.com"}`,
		`{"ContactType":"Technical","LastName":"","EmailAddress":"ada"}`,
	} {
		r, m := a.do("POST", "/organisations/0b7e7c2e-2a57-4a44-9a4d-0d1c6f1f4d7a/contacts", body)
		if r.StatusCode != 404 || m["detail"] != "Organisation not found" {
			t.Fatalf("%s: %d %v", body, r.StatusCode, m)
		}
	}
	if after := auditTotal(a); after != before {
		t.Fatalf("audit records %v → %v", before, after)
	}
}
