package web_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// csvOfSize is an import file of exactly n bytes: one organisation whose
// LegalEntityName fills it (too long, so a file read whole is a 422).
func csvOfSize(n int) string {
	head := "OrganisationName,RegistrationNumber,CountryOfRegistration,LegalEntityName\nA,1,GB,"
	return head + strings.Repeat("x", n-len(head)-1) + "\n"
}

// TestImportOver10MiBIs413: a text/csv import of 10 MiB is read (and
// judged on its content); one byte more, or 11 MiB, is 413.
func TestImportOver10MiBIs413(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	for _, c := range []struct {
		name   string
		size   int
		status int
	}{
		{"10 MiB", 10 << 20, 422},
		{"10 MiB + 1", 10<<20 + 1, 413},
		{"11 MiB", 11 << 20, 413},
	} {
		body := csvOfSize(c.size)
		if len(body) != c.size {
			t.Fatalf("%s: built %d bytes", c.name, len(body))
		}
		if r, m := a.do("POST", "/organisations/import", body, "Content-Type", "text/csv"); r.StatusCode != c.status {
			t.Errorf("%s: %d %.200v, want %d", c.name, r.StatusCode, m, c.status)
		}
	}
}

// TestOversizedCertificateMultipartIs413: the certificate wizard's review
// step and the upload API answer 413 to a multipart body over 1 MiB, not
// 400.
func TestOversizedCertificateMultipartIs413(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	big := func() (string, *bytes.Buffer) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		mw.WriteField("type", "qseal")
		fw, _ := mw.CreateFormFile("file", "cert.pem")
		fw.Write(bytes.Repeat([]byte("A"), 2<<20))
		mw.Close()
		return mw.FormDataContentType(), &buf
	}
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	ct, body := big()
	req, _ := http.NewRequest("POST", env.URL+"/organisations/"+oid+"/certificates/new/review", body)
	req.Header.Set("Content-Type", ct)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("review: %d, want 413", resp.StatusCode)
	}
	ct, body = big()
	req, _ = http.NewRequest("POST", env.URL+"/api/organisations/"+oid+"/certificates/qseal", body)
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Authorization", "Bearer "+a.token)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("upload API: %d, want 413", resp.StatusCode)
	}
}
