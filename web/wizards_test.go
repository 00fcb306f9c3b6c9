package web_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestWizardStepsValidateWhatTheyShow: the document wizard's type step
// refuses an unknown type (422, beside the field) and the details step
// does not ask for the type again; the certificate wizard's type step
// says so when no type is chosen; its review is a GET after a redirect.
func TestWizardStepsValidateWhatTheyShow(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	resp, doc := page(t, c, env.URL+"/organisations/"+oid+"/documents/new?DocumentType=Nope")
	if resp.StatusCode != 422 || doc.Find("[data-testid=document-type-step] [data-testid=error-DocumentType]").Length() != 1 {
		t.Fatalf("unknown type: %d", resp.StatusCode)
	}
	_, doc = page(t, c, env.URL+"/organisations/"+oid+"/documents/new?DocumentType=Licence")
	if doc.Find("select[name=DocumentType]").Length() != 0 || doc.Find("input[type=hidden][name=DocumentType][value=Licence]").Length() != 1 {
		t.Fatal("the details step asks for the type again")
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
