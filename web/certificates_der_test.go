package web_test

import (
	"bytes"
	"encoding/pem"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestCertificateAsDER: a .cer or .crt file is often the DER itself, and
// application/pkix-cert is DER by definition. Both are taken as the
// certificate they hold (the same kid as its PEM); bytes that are neither
// PEM nor DER are a 422 on PEM, and the console never shows them back.
func TestCertificateAsDER(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	blk, _ := pem.Decode([]byte(webtest.ValidCert(t, "p256", "der.acme.example")))
	der := blk.Bytes

	r, m := a.sendBody("POST", "/organisations/"+oid+"/certificates/qseal", "application/pkix-cert", bytes.NewReader(der))
	if r.StatusCode != 201 || !strings.Contains(m["SubjectDN"].(string), "der.acme.example") {
		t.Fatalf("DER body: %d %v", r.StatusCode, m)
	}
	r, m = a.sendBody("POST", "/organisations/"+oid+"/certificates/qseal", "application/pkix-cert", bytes.NewReader([]byte{0x30, 0x82, 0, 0xff, 0}))
	if r.StatusCode != 422 || !strings.Contains(mustMarshal(m), `"field":"PEM"`) {
		t.Fatalf("bytes that are no certificate: %d %v", r.StatusCode, m)
	}
	if l := a.must(200, "GET", "/organisations/"+oid+"/certificates", ""); len(l["list"].([]any)) != 1 {
		t.Fatal("a refused upload stored something")
	}

	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	upload := func(file []byte) *http.Response {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		mw.WriteField("type", "qseal")
		mw.WriteField("PEM", "")
		fw, _ := mw.CreateFormFile("file", "seal.cer")
		fw.Write(file)
		mw.Close()
		req, _ := http.NewRequest("POST", env.URL+"/organisations/"+oid+"/certificates/new/review", &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	blk, _ = pem.Decode([]byte(webtest.ValidCert(t, "p256", "file.acme.example")))
	resp := upload(blk.Bytes)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("DER file: %d", resp.StatusCode)
	}
	_, doc := page(t, c, env.URL+resp.Header.Get("Location"))
	if !strings.Contains(doc.Find("[data-testid=review-details]").Text(), "file.acme.example") {
		t.Fatal("the DER file is not reviewed as its certificate")
	}
	resp = upload([]byte{0x30, 0x82, 0, 0xff, 0, 1, 2})
	defer resp.Body.Close()
	doc, _ = goquery.NewDocumentFromReader(resp.Body)
	if resp.StatusCode != 422 || !strings.Contains(doc.Find("[data-testid=error-PEM]").Text(), "neither a PEM certificate nor a DER one") ||
		doc.Find("#f-PEM").Text() != "" {
		t.Fatalf("a file that is no certificate: %d %q", resp.StatusCode, doc.Find("[data-testid=error-PEM]").Text())
	}
}

// TestCertificateWizardSaysDER: the wizard's upload step says that a file
// may be PEM or DER (a .cer is often DER), not only PEM.
func TestCertificateWizardSaysDER(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc := page(t, c, env.URL+"/organisations/"+oid+"/certificates/new?step=type&type=qseal")
	if doc.Find("#f-file").Length() != 1 {
		t.Fatal("no upload step")
	}
	if label := doc.Find("label[for=f-file]").Text(); !strings.Contains(label, "PEM or DER") {
		t.Errorf("the file's label %q", label)
	}
	if intro := doc.Find("[data-testid=upload-intro]").Text(); !strings.Contains(intro, "DER") {
		t.Errorf("the step says %q", intro)
	}
}
