package web_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/trustframe/trustframe/web/webtest"
)

func dayFromNow(d int) string { return time.Now().UTC().AddDate(0, 0, d).Format("2006-01-02") }

// A document with nothing but its type is refused, on the API (422 naming
// what is missing) and in the form; nothing is saved.
func TestEmptyDocumentRefused(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	base := "/organisations/" + oid + "/documents"
	r, m := a.do("POST", base, `{"DocumentType":"Licence"}`)
	if r.StatusCode != 422 || !strings.Contains(fieldsOf(m)["DocumentReferenceNumber"], "reference number, a description, or its start or expiry date") {
		t.Fatalf("empty document: %d %v", r.StatusCode, m)
	}
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.PostForm(env.URL+base, url.Values{"DocumentType": {"Licence"}})
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	if resp.StatusCode != 422 || !strings.Contains(doc.Find("[data-testid=error-DocumentReferenceNumber]").Text(), "more than its type") {
		t.Fatalf("empty document in the form: %d", resp.StatusCode)
	}
	if l := a.must(200, "GET", base, ""); l["totalSize"].(float64) != 0 {
		t.Fatalf("saved: %v", l)
	}
}

// An expiry date already past: the console's form comes back once with a
// warning and "Save anyway" (nothing saved); Save anyway saves it. The
// API saves it as it always did. Editing another field of such a document
// asks nothing.
func TestExpiredDocumentWarnsInTheConsole(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	base := "/organisations/" + oid + "/documents"
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	form := url.Values{"DocumentType": {"Licence"}, "DocumentReferenceNumber": {"OLD-1"}, "DocumentExpiryDate": {dayFromNow(-2)}}
	resp, err := c.PostForm(env.URL+base, form)
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	if resp.StatusCode != 422 || doc.Find("[data-testid=expired-warning]").Length() != 1 || doc.Find("button[name=SaveExpired][value='1']").Length() != 1 {
		t.Fatalf("no warning: %d", resp.StatusCode)
	}
	if v, _ := doc.Find("#f-DocumentReferenceNumber").Attr("value"); v != "OLD-1" {
		t.Fatalf("typed text lost: %q", v)
	}
	if l := a.must(200, "GET", base, ""); l["totalSize"].(float64) != 0 {
		t.Fatalf("saved before Save anyway: %v", l)
	}
	form.Set("SaveExpired", "1")
	resp, err = c.PostForm(env.URL+base, form)
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	if doc.Find("[data-testid=document-row]").Length() != 1 {
		t.Fatalf("Save anyway did not save: %d %s", resp.StatusCode, resp.Request.URL)
	}
	l := a.must(200, "GET", base, "")
	id := l["content"].([]any)[0].(map[string]any)["DocumentId"].(string)
	// Editing its description keeps the same past date: no second question.
	resp, err = c.PostForm(env.URL+base+"/"+id, url.Values{"DocumentType": {"Licence"}, "DocumentReferenceNumber": {"OLD-1"}, "DocumentDescription": {"the old licence"}, "DocumentExpiryDate": {dayFromNow(-2)}})
	if err != nil {
		t.Fatal(err)
	}
	if doc = docOf(t, resp); doc.Find("[data-testid=expired-warning]").Length() != 0 || !strings.Contains(doc.Find("[data-testid=document-row]").Text(), "the old licence") {
		t.Fatalf("edit of an expired document: %d", resp.StatusCode)
	}
	// The API saves an expired document without a word (its answer is unchanged).
	a.must(201, "POST", base, `{"DocumentType":"Licence","DocumentReferenceNumber":"OLD-2","DocumentExpiryDate":"`+dayFromNow(-5)+`"}`)
}

// A document can be withdrawn (audited as status, kept, never deleted):
// it leaves GET /api/expiring and "Needs attention", and can be made
// Active again.
func TestWithdrawDocument(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	base := "/organisations/" + oid + "/documents"
	d := a.must(201, "POST", base, `{"DocumentType":"Licence","DocumentReferenceNumber":"OLD-1","DocumentExpiryDate":"`+dayFromNow(-3)+`"}`)
	if d["Status"] != "Active" {
		t.Fatalf("new document: %v", d)
	}
	id := d["DocumentId"].(string)
	if e := a.must(200, "GET", "/expiring", ""); len(e["Documents"].([]any)) != 1 {
		t.Fatalf("expiring before: %v", e)
	}
	if r, m := a.do("POST", base+"/"+id+"/status", `{"Status":"Gone"}`); r.StatusCode != 422 || fieldsOf(m)["Status"] == "" {
		t.Fatalf("bad status: %d %v", r.StatusCode, m)
	}
	w := a.must(200, "POST", base+"/"+id+"/status", `{"Status":"Withdrawn"}`)
	if w["Status"] != "Withdrawn" || w["DocumentReferenceNumber"] != "OLD-1" {
		t.Fatalf("withdrawn: %v", w)
	}
	if e := a.must(200, "GET", "/expiring", ""); len(e["Documents"].([]any)) != 0 {
		t.Fatalf("a withdrawn document still expiring: %v", e)
	}
	// Kept: still listed and readable; an edit keeps it withdrawn.
	a.must(200, "GET", base+"/"+id, "")
	if u := a.must(200, "PUT", base+"/"+id, `{"DocumentType":"Licence","DocumentReferenceNumber":"OLD-1b","DocumentExpiryDate":"`+dayFromNow(-3)+`"}`); u["Status"] != "Withdrawn" {
		t.Fatalf("an edit changed the status: %v", u)
	}
	audit := a.must(200, "GET", "/audit?SubjectId="+id+"&Action=status", "")
	if audit["totalSize"].(float64) != 1 {
		t.Fatalf("audit of the withdrawal: %v", audit)
	}
	// In the console: the Documents tab shows it Withdrawn with Make Active.
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc := page(t, c, env.URL+base)
	row := doc.Find("[data-testid=document-row]")
	if !strings.Contains(row.Text(), "Withdrawn") || row.Find("[data-testid=reactivate-document]").Length() != 1 {
		t.Fatalf("documents tab: %s", row.Text())
	}
	resp, err := c.PostForm(env.URL+base+"/"+id+"/status", url.Values{"Status": {"Active"}})
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	if !strings.Contains(doc.Text(), "Active again") || doc.Find("[data-testid=withdraw-document]").Length() != 1 {
		t.Fatalf("make active: %d", resp.StatusCode)
	}
}

// An item of "Needs attention" can be acknowledged (audited): it leaves
// the start page until its expiry date changes; GET /api/expiring still
// lists it. An unknown item is refused with a message, nothing changed.
func TestAcknowledgeNeedsAttention(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	base := "/organisations/" + oid + "/documents"
	id := a.must(201, "POST", base, `{"DocumentType":"Licence","DocumentReferenceNumber":"SOON-1","DocumentExpiryDate":"`+dayFromNow(5)+`"}`)["DocumentId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc := page(t, c, env.URL+"/")
	if doc.Find("[data-testid=expiring-document] [data-testid=acknowledge]").Length() != 1 {
		t.Fatal("no Acknowledge button")
	}
	resp, err := c.PostForm(env.URL+"/attention/acknowledge", url.Values{"Kind": {"Document"}, "ID": {id}})
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	if doc.Find("[data-testid=expiring-document]").Length() != 0 || !strings.Contains(doc.Text(), "Acknowledged") {
		t.Fatalf("still listed after acknowledging: %d %s", resp.StatusCode, resp.Request.URL)
	}
	if e := a.must(200, "GET", "/expiring", ""); len(e["Documents"].([]any)) != 1 {
		t.Fatalf("the API's list changed: %v", e)
	}
	if au := a.must(200, "GET", "/audit?SubjectId="+id+"&Action=acknowledge", ""); au["totalSize"].(float64) != 1 {
		t.Fatalf("audit: %v", au)
	}
	// A new expiry date brings it back.
	a.must(200, "PUT", base+"/"+id, `{"DocumentType":"Licence","DocumentReferenceNumber":"SOON-1","DocumentExpiryDate":"`+dayFromNow(6)+`"}`)
	if _, doc = page(t, c, env.URL+"/"); doc.Find("[data-testid=expiring-document]").Length() != 1 {
		t.Fatal("a changed expiry did not bring it back")
	}
	before := a.must(200, "GET", "/audit?size=1", "")["totalSize"]
	for _, f := range []url.Values{{"Kind": {"Document"}, "ID": {"nope"}}, {"Kind": {"Horoscope"}, "ID": {id}}} {
		resp, err = c.PostForm(env.URL+"/attention/acknowledge", f)
		if err != nil {
			t.Fatal(err)
		}
		doc = docOf(t, resp)
		if resp.StatusCode >= 500 || !strings.Contains(doc.Text(), "Not acknowledged") || doc.Find("[data-testid=expiring-document]").Length() != 1 {
			t.Fatalf("%v: %d", f, resp.StatusCode)
		}
	}
	if after := a.must(200, "GET", "/audit?size=1", "")["totalSize"]; fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("a refused acknowledgement was recorded: %v → %v", before, after)
	}
}
