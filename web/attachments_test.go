package web_test

import (
	"crypto/ecdsa"
	"encoding/json"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestAttachmentTextIsChecked: an attachment's Description over 500
// characters (it was cut at 1,000 bytes, maybe inside a character, and
// kept), or its Description or file name holding a NUL or bytes that are
// not UTF-8, or a file name over 255 characters or with a control
// character or direction mark, is a 422 naming the field, on an add and on a multipart
// update, and nothing changes (docs/design.md §4; docs/decisions.md,
// "Field limits").
func TestAttachmentTextIsChecked(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Attach"))["OrganisationId"].(string)
	k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &k.PublicKey})
	base := "/organisations/" + oid + "/key-material/" + a.must(201, "POST", "/organisations/"+oid+"/key-material", `{"PublicJwk":`+string(pub)+`,"Use":"sig"}`)["KeyMaterialID"].(string) + "/attachments"
	_, att := a.multipart("POST", base, "a.txt", []byte("x"), "kept")
	one := base + "/" + att["KeyMaterialAttachmentID"].(string)
	part := func(disposition, content string) string {
		return "--B\r\nContent-Disposition: form-data; " + disposition + "\r\n\r\n" + content + "\r\n"
	}
	file := part(`name="file"; filename="b.txt"`, "y")
	for _, c := range []struct{ name, body, field string }{
		{"Description of 501 characters", file + part(`name="Description"`, strings.Repeat("d", 501)) + "--B--\r\n", "Description"},
		{"Description of 600 two-byte characters", file + part(`name="Description"`, strings.Repeat("é", 600)) + "--B--\r\n", "Description"},
		{"Description with a NUL", file + part(`name="Description"`, "a\x00b") + "--B--\r\n", "Description"},
		{"Description not UTF-8", file + part(`name="Description"`, "a\xffb") + "--B--\r\n", "Description"},
		{"file name with a NUL", part(`name="file"; filename*=UTF-8''a%00b.txt`, "y") + "--B--\r\n", "file"},
		{"file name not UTF-8", part(`name="file"; filename*=UTF-8''a%FFb.txt`, "y") + "--B--\r\n", "file"},
		{"file name of 256 characters", part(`name="file"; filename="`+strings.Repeat("n", 252)+`.txt"`, "y") + "--B--\r\n", "file"},
		{"file name with a direction mark", part(`name="file"; filename*=UTF-8''invoice%E2%80%AEfdp.exe`, "y") + "--B--\r\n", "file"},
	} {
		for _, m := range []struct{ method, path string }{{"POST", base}, {"PUT", one}} {
			before := toJSON(t, a.must(200, "GET", base, ""))
			n := auditTotal(a)
			r, got := a.rawMultipart(m.method, m.path, c.body)
			if r.StatusCode != 422 || fieldsOf(got)[c.field] == "" {
				t.Errorf("%s %s: %d %v, want 422 naming %s", m.method, c.name, r.StatusCode, got, c.field)
			}
			if toJSON(t, a.must(200, "GET", base, "")) != before || auditTotal(a) != n {
				t.Errorf("%s %s changed something", m.method, c.name)
			}
		}
	}
	// 500 characters of two bytes each are fine.
	if r, got := a.rawMultipart("POST", base, file+part(`name="Description"`, strings.Repeat("é", 500))+"--B--\r\n"); r.StatusCode != 201 {
		t.Fatalf("a Description of 500 characters: %d %v", r.StatusCode, got)
	}
}

// TestRefusedUploadAuditKeepsText: the audit record of a refused upload
// names the certificate type from the URL; a NUL or bytes that are not
// UTF-8 there (which PostgreSQL's text cannot hold, so copy-database could
// not copy the record) or 5,000 characters are not kept as sent.
func TestRefusedUploadAuditKeepsText(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Audited"))["OrganisationId"].(string)
	for _, typ := range []string{"q%00seal", "q%FFseal", strings.Repeat("x", 5000)} {
		if r, m := postPEM(t, a, "/organisations/"+oid+"/certificates/"+typ, webtest.ValidCert(t, "p256", "c")); r.StatusCode != 422 {
			t.Fatalf("upload to type %.20s: %d %v", typ, r.StatusCode, m)
		}
	}
	l := a.must(200, "GET", "/audit?Action=upload_refused&OrganisationId="+oid, "")
	recs := l["content"].([]any)
	if len(recs) != 3 {
		t.Fatalf("%d refusals audited, want 3", len(recs))
	}
	for _, rec := range recs {
		for _, f := range []string{"CertificateType", "Summary"} {
			s, _ := rec.(map[string]any)[f].(string)
			if strings.ContainsAny(s, "\x00\ufffd") || len([]rune(s)) > 500 {
				t.Errorf("audited %s %.40q (%d characters)", f, s, len([]rune(s)))
			}
		}
	}
}

// TestAttachmentTakesOneFilePart: a multipart body with two parts named
// file (or two Description parts) is a 400; the second was kept and the
// first dropped without a word.
func TestAttachmentTakesOneFilePart(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("TwoParts"))["OrganisationId"].(string)
	k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &k.PublicKey})
	base := "/organisations/" + oid + "/key-material/" + a.must(201, "POST", "/organisations/"+oid+"/key-material", `{"PublicJwk":`+string(pub)+`,"Use":"sig"}`)["KeyMaterialID"].(string) + "/attachments"
	part := func(disposition, content string) string {
		return "--B\r\nContent-Disposition: form-data; " + disposition + "\r\n\r\n" + content + "\r\n"
	}
	for name, body := range map[string]string{
		"two files":        part(`name="file"; filename="a.txt"`, "a") + part(`name="file"; filename="b.txt"`, "b") + "--B--\r\n",
		"two descriptions": part(`name="file"; filename="a.txt"`, "a") + part(`name="Description"`, "one") + part(`name="Description"`, "two") + "--B--\r\n",
	} {
		n := auditTotal(a)
		if r, m := a.rawMultipart("POST", base, body); r.StatusCode != 400 || (fieldsOf(m)["file"] == "" && fieldsOf(m)["Description"] == "") {
			t.Errorf("%s: %d %v, want 400 naming the part", name, r.StatusCode, m)
		}
		if auditTotal(a) != n {
			t.Errorf("%s wrote an audit record", name)
		}
	}
}
