package web_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestWizardStepsValidateWhatTheyShow: adding a document is one page (its
// details do not depend on the type: issue 40), the type chosen there or
// beforehand (?DocumentType=), an unknown one not offered; the certificate
// wizard's type step
// says so when no type is chosen; its review is a GET after a redirect.
func TestWizardStepsValidateWhatTheyShow(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	resp, doc := page(t, c, env.URL+"/organisations/"+oid+"/documents/new?DocumentType=Nope")
	if resp.StatusCode != 200 || doc.Find("select[name=DocumentType] option[value=Nope]").Length() != 0 {
		t.Fatalf("unknown type: %d, offered", resp.StatusCode)
	}
	_, doc = page(t, c, env.URL+"/organisations/"+oid+"/documents/new?DocumentType=Licence")
	if doc.Find("select[name=DocumentType] option[selected]").AttrOr("value", "") != "Licence" || doc.Find("#f-DocumentReferenceNumber").Length() != 1 || doc.Find(".tf-steps").Length() != 0 {
		t.Fatal("the page does not hold the type chosen and the details together")
	}
	if last := doc.Find("nav[aria-label=breadcrumb] li").Last().Text(); strings.TrimSpace(last) != "Add document" {
		t.Errorf("the breadcrumb ends %q", last)
	}

	_, doc = page(t, c, env.URL+"/organisations/"+oid+"/certificates/new?step=type")
	if !strings.Contains(doc.Find("[data-testid=wizard-type] .tf-field-error").Text(), "Choose a certificate type") {
		t.Fatal("Next without a type says nothing")
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("type", "qseal")
	mw.WriteField("PEM", webtest.ValidCert(t, "p256", "seal.acme.example"))
	mw.Close()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, _ := http.NewRequest("POST", env.URL+"/organisations/"+oid+"/certificates/new/review", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	review := "/organisations/" + oid + "/certificates/new/review"
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != review {
		t.Fatalf("review post: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	for range 2 { // shown again (Back, Forward, reload)
		resp, doc = page(t, c, env.URL+review)
		if resp.StatusCode != 200 || !strings.Contains(doc.Find("[data-testid=review-details]").Text(), "seal.acme.example") {
			t.Fatalf("review page: %d", resp.StatusCode)
		}
	}
	// Without a review in progress, the review page goes to the wizard's start.
	other := webtest.Browser()
	webtest.SignIn(t, other, env.URL, "admin@example.com").Body.Close()
	other.CheckRedirect = c.CheckRedirect
	resp, err = other.Get(env.URL + review)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/organisations/"+oid+"/certificates/new" {
		t.Fatalf("no review: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}
