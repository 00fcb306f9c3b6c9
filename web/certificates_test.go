package web_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/web/webtest"
)

func TestCertificatesUploadRevokeAndKeystore(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	base := "/organisations/" + oid + "/certificates/"
	rsaPEM := webtest.ValidCert(t, "rsa2048", "rsa.acme.example")
	resp, c := postPEM(t, a, base+"qseal", rsaPEM)
	if resp.StatusCode != 201 {
		t.Fatalf("RSA: %d %v", resp.StatusCode, c)
	}
	blk, _ := pem.Decode([]byte(rsaPEM))
	sum := sha256.Sum256(blk.Bytes)
	kid := base64.RawURLEncoding.EncodeToString(sum[:])
	if c["kid"] != kid || resp.Header.Get("Location") != "/api"+base+"kid/"+kid || !strings.Contains(c["SubjectDN"].(string), "rsa.acme.example") {
		t.Fatalf("kid %v want %s; %v", c["kid"], kid, resp.Header.Get("Location"))
	}
	jwk := c["PublicJwk"].(map[string]any)
	if jwk["x5t#S256"] != kid || jwk["kty"] != "RSA" || jwk["use"] != "sig" || len(jwk["x5c"].([]any)) != 1 {
		t.Fatalf("jwk %v", jwk)
	}
	// EC, through the JSON form of the body, as a transport certificate.
	ecPEM := webtest.ValidCert(t, "p256", "ec.acme.example")
	ec := a.must(201, "POST", base+"rtstransport_rs", mustMarshal(map[string]string{"PEM": ecPEM}))
	if ec["PublicJwk"].(map[string]any)["crv"] != "P-256" || ec["PublicJwk"].(map[string]any)["use"] != "tls" {
		t.Fatalf("EC: %v", ec["PublicJwk"])
	}
	a.must(201, "POST", base+"qwac", mustMarshal(map[string]string{"PEM": webtest.ValidCert(t, "p384", "p384")}))

	if l := a.must(200, "GET", "/organisations/"+oid+"/certificates", ""); len(l["list"].([]any)) != 3 {
		t.Fatalf("list: %v", l)
	}
	if l := a.must(200, "GET", base+"qseal", ""); len(l["list"].([]any)) != 1 {
		t.Fatalf("by type: %v", l)
	}
	a.must(404, "GET", base+"nonsense", "")
	if one := a.must(200, "GET", base+"kid/"+kid, ""); one["OrganisationCertificateType"] != "qseal" {
		t.Fatal(one)
	}
	a.must(404, "GET", base+"kid/nope", "")

	set := keystore(t, env.URL, oid, false)
	if len(set.Keys) != 3 || len(set.Key(kid)) != 1 {
		t.Fatalf("active keystore: %d keys", len(set.Keys))
	}
	if len(keystore(t, env.URL, oid, true).Keys) != 0 {
		t.Fatal("inactive keystore not empty")
	}

	// Revoke: 204, twice 409, unknown kid 404, bad reason 422.
	// A reason in any case (RFC 5280 spells it keyCompromise), kept in one.
	if r, m := a.do("PUT", base+"kid/"+kid, `{"RevokeReason":"keyCompromise"}`); r.StatusCode != 204 {
		t.Fatalf("revoke: %d %v", r.StatusCode, m)
	}
	if got := a.must(200, "GET", base+"kid/"+kid, "")["RevokeReason"]; got != "keycompromise" {
		t.Fatalf("the reason is kept as %v", got)
	}
	a.must(409, "PUT", base+"kid/"+kid, `{"RevokeReason":"superseded"}`)
	a.must(404, "PUT", base+"kid/unknown-kid", `{"RevokeReason":"superseded"}`)
	a.must(422, "PUT", base+"kid/"+ec["kid"].(string), `{"RevokeReason":"tired"}`)
	a.must(422, "PUT", base+"kid/"+ec["kid"].(string), `{}`)
	if set := keystore(t, env.URL, oid, false); len(set.Keys) != 2 || len(set.Key(kid)) != 0 {
		t.Fatalf("after revoke, active: %d", len(set.Keys))
	}
	if set := keystore(t, env.URL, oid, true); len(set.Keys) != 1 || len(set.Key(kid)) != 1 {
		t.Fatalf("after revoke, inactive: %d", len(set.Keys))
	}
	// Every reason is accepted once.
	for _, reason := range []string{"unspecified", "keycompromise", "superseded", "cessationofoperation", "privilegewithdrawn"} {
		c := a.must(201, "POST", base+"qseal", mustMarshal(map[string]string{"PEM": webtest.ValidCert(t, "p256", reason)}))
		if r, _ := a.do("PUT", base+"kid/"+c["kid"].(string), `{"RevokeReason":"`+reason+`"}`); r.StatusCode != 204 {
			t.Fatalf("reason %s: %d", reason, r.StatusCode)
		}
	}
	// The removed description update.
	r, m := a.do("PUT", base+"qseal", `{"Description":"x"}`)
	if r.StatusCode != 410 || !strings.Contains(m["detail"].(string), "removed in release 2.6.0") || !strings.Contains(m["detail"].(string), "key-material") {
		t.Fatalf("410: %d %v", r.StatusCode, m)
	}
	resp, _ = http.Get(env.URL + "/keystore/00000000-0000-4000-8000-000000000000/application.jwks")
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("unknown organisation keystore: %d", resp.StatusCode)
	}
	// The audit API lists the certificate events.
	l := a.must(200, "GET", "/audit?Subject=OrganisationCertificate&OrganisationId="+oid+"&KeyId="+kid, "")
	actions := []string{}
	for _, rec := range l["content"].([]any) {
		actions = append(actions, rec.(map[string]any)["Action"].(string))
	}
	if strings.Join(actions, ",") != "revoke,upload" {
		t.Fatalf("audit for %s: %v", kid, actions)
	}
}

func TestCertificateRefusals(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	base := "/organisations/" + oid + "/certificates/"
	good := webtest.ValidCert(t, "p256", "good")
	a.must(201, "POST", base+"qseal", mustMarshal(map[string]string{"PEM": good}))
	now := time.Now()
	cases := []struct {
		name, typ, pem string
		status         int
		field, want    string
	}{
		{"not PEM", "qseal", "hello", 422, "PEM", "not a PEM certificate"},
		{"two certificates", "qseal", webtest.ValidCert(t, "p256", "a") + webtest.ValidCert(t, "p256", "b"), 422, "PEM", "2 certificates"},
		{"expired", "qseal", webtest.Cert(t, webtest.Key(t, "p256"), "old", now.Add(-72*time.Hour), now.Add(-time.Hour)), 422, "PEM", "expired"},
		{"weak key", "qseal", webtest.ValidCert(t, "rsa1024", "weak"), 422, "PEM", "at least 2048"},
		{"duplicate", "qseal", good, 409, "", "already uploaded"},
		{"unknown type", "eidas-magic", webtest.ValidCert(t, "p256", "c"), 422, "OrganisationCertificateType", "no active certificate type"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, m := postPEM(t, a, base+c.typ, c.pem)
			msg := ""
			for _, e := range m["errors"].([]any) {
				em := e.(map[string]any)
				if c.field == "" || em["field"] == c.field {
					msg += em["message"].(string)
				}
			}
			if r.StatusCode != c.status || !strings.Contains(msg, c.want) {
				t.Fatalf("%d %v", r.StatusCode, m)
			}
		})
	}
	if l := a.must(200, "GET", "/organisations/"+oid+"/certificates", ""); len(l["list"].([]any)) != 1 {
		t.Fatal("a refused upload stored something")
	}
	l := a.must(200, "GET", "/audit?Subject=OrganisationCertificate&OrganisationId="+oid+"&Action=upload_refused", "")
	if l["totalSize"].(float64) != float64(len(cases)) {
		t.Fatalf("refused attempts audited: %v", l["totalSize"])
	}
}

func TestKeyMaterialAPI(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	base := "/organisations/" + oid + "/key-material"
	k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &k.PublicKey})
	priv, _ := json.Marshal(jose.JSONWebKey{Key: k})
	resp, km := a.do("POST", base, `{"PublicJwk":`+string(pub)+`,"Use":"sig","Description":"payments signing"}`)
	if resp.StatusCode != 201 || km["Status"] != "Active" || km["Kid"] == "" || resp.Header.Get("Location") == "" {
		t.Fatalf("create: %d %v", resp.StatusCode, km)
	}
	tp, _ := (&jose.JSONWebKey{Key: &k.PublicKey}).Thumbprint(0x5)
	if km["Kid"] != base64.RawURLEncoding.EncodeToString(tp) {
		t.Fatalf("Kid %v is not the RFC 7638 thumbprint", km["Kid"])
	}
	id := km["KeyMaterialID"].(string)
	// The same key again, as PEM: a duplicate.
	der, _ := x509.MarshalPKIXPublicKey(&k.PublicKey)
	a.must(409, "POST", base, mustMarshal(map[string]string{"PEM": string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))}))
	if r, m := a.do("POST", base, `{"PublicJwk":`+string(priv)+`}`); r.StatusCode != 422 || !strings.Contains(fieldsOf(m)["PublicJwk"], "private member") {
		t.Fatalf("private JWK: %d %v", r.StatusCode, m)
	}
	a.must(422, "POST", base, `{"PublicJwk":`+string(pub)+`,"Use":"mint"}`)
	// A certificate as key material.
	cm := a.must(201, "POST", base, mustMarshal(map[string]string{"PEM": webtest.ValidCert(t, "rsa2048", "km"), "Use": "enc"}))
	if l := a.must(200, "GET", base, ""); len(l["list"].([]any)) != 2 {
		t.Fatalf("list: %v", l)
	}
	got := a.must(200, "GET", base+"/"+id, "")
	if got["Description"] != "payments signing" {
		t.Fatal(got)
	}
	upd := a.must(200, "PUT", base+"/"+id, `{"Description":"renamed","Use":"enc","Status":"Active"}`)
	if upd["Description"] != "renamed" || upd["Use"] != "enc" {
		t.Fatal(upd)
	}
	a.must(422, "PUT", base+"/"+id, `{"Status":"Revoked"}`)
	a.must(422, "PUT", base+"/"+id, `{"Status":"Revoked","RevokeReason":"bored"}`)
	a.must(422, "PUT", base+"/"+id, `{"Status":"Active","PEM":"x"}`)

	// Attachments: exactly 10 MiB is accepted, one byte more is 413.
	ten := bytes.Repeat([]byte("a"), 10<<20)
	r, att := a.multipart("POST", base+"/"+id+"/attachments", "policy.pdf", ten, "key policy")
	if r.StatusCode != 201 || att["Size"].(float64) != 10<<20 || att["FileName"] != "policy.pdf" {
		t.Fatalf("10 MiB: %d %v", r.StatusCode, att)
	}
	s := sha256.Sum256(ten)
	if att["SHA256"] != hex.EncodeToString(s[:]) {
		t.Fatal("sha256")
	}
	if r, m := a.multipart("POST", base+"/"+id+"/attachments", "big.bin", append(ten, 'b'), ""); r.StatusCode != 413 {
		t.Fatalf("10 MiB + 1: %d %v", r.StatusCode, m)
	}
	if r, _ := a.multipart("POST", base+"/"+id+"/attachments", "", nil, "no file"); r.StatusCode != 422 {
		t.Fatalf("no file: %d", r.StatusCode)
	}
	a.must(415, "POST", base+"/"+id+"/attachments", `{"Description":"json"}`)
	aid := att["KeyMaterialAttachmentID"].(string)
	if l := a.must(200, "GET", base+"/"+id+"/attachments", ""); len(l["list"].([]any)) != 1 {
		t.Fatal(l)
	}
	req, _ := http.NewRequest("GET", a.base+"/api"+base+"/"+id+"/attachments/"+aid+"/content", nil)
	req.Header.Set("Authorization", "Bearer "+a.token)
	dl, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(dl.Body)
	dl.Body.Close()
	if dl.StatusCode != 200 || !bytes.Equal(body, ten) || !strings.Contains(dl.Header.Get("Content-Disposition"), "policy.pdf") {
		t.Fatalf("download: %d %d bytes", dl.StatusCode, len(body))
	}
	if u := a.must(200, "PUT", base+"/"+id+"/attachments/"+aid, `{"Description":"v2 policy"}`); u["Description"] != "v2 policy" || u["Size"].(float64) != 10<<20 {
		t.Fatal(u)
	}
	if r, u := a.multipart("PUT", base+"/"+id+"/attachments/"+aid, "small.txt", []byte("hi"), "replaced"); r.StatusCode != 200 || u["Size"].(float64) != 2 || u["FileName"] != "small.txt" {
		t.Fatalf("replace file: %d %v", r.StatusCode, u)
	}
	a.must(404, "PUT", base+"/"+id+"/attachments/nope", `{"Description":"x"}`)

	// Keystore: certificates and key material alike.
	if set := keystore(t, env.URL, oid, false); len(set.Keys) != 2 || len(set.Key(km["Kid"].(string))) != 1 || len(set.Key(cm["Kid"].(string))) != 1 {
		t.Fatalf("keystore: %d", len(set.Keys))
	}
	// Revoke, then any update is refused.
	rv := a.must(200, "PUT", base+"/"+id, `{"Status":"Revoked","RevokeReason":"superseded"}`)
	if rv["Status"] != "Revoked" || rv["RevokeReason"] != "superseded" {
		t.Fatal(rv)
	}
	a.must(409, "PUT", base+"/"+id, `{"Description":"after","Status":"Revoked","RevokeReason":"superseded"}`)
	a.must(409, "PUT", base+"/"+id, `{"Status":"Active"}`)
	if set := keystore(t, env.URL, oid, true); len(set.Key(km["Kid"].(string))) != 1 {
		t.Fatal("revoked key material not in the inactive keystore")
	}
	a.must(404, "GET", base+"/00000000-0000-4000-8000-000000000000", "")
}

func TestKeyMaterialTab(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	priv, _ := json.Marshal(jose.JSONWebKey{Key: k})
	resp, err := c.PostForm(env.URL+"/organisations/"+oid+"/key-material", map[string][]string{"Key": {string(priv)}, "Use": {"sig"}})
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	if resp.StatusCode != 422 || !strings.Contains(doc.Find("[data-testid=error-Key]").Text(), "private member") {
		t.Fatalf("private key in the form: %d %q", resp.StatusCode, doc.Find("[data-testid=error-Key]").Text())
	}
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &k.PublicKey})
	resp, err = c.PostForm(env.URL+"/organisations/"+oid+"/key-material", map[string][]string{"Key": {string(pub)}, "Use": {"enc"}, "Description": {"encryption key"}})
	if err != nil {
		t.Fatal(err)
	}
	doc = docOf(t, resp)
	if resp.StatusCode != 200 || !strings.Contains(resp.Request.URL.Path, "/key-material/") || !strings.Contains(doc.Find("[data-testid=public-jwk]").Text(), `"use":"enc"`) {
		t.Fatalf("created: %d %s", resp.StatusCode, resp.Request.URL)
	}
	_, doc = page(t, c, env.URL+"/organisations/"+oid+"/key-material")
	if doc.Find("[data-testid=key-material-row]").Length() != 1 {
		t.Fatal("the tab does not list the key")
	}
}

// TestUnknownCertificateTypeNamesTheTypes: the certificate types are fixed
// Reference Data with no list in the API, and the description's example
// (TRANSPORT) is not one of them, so the refusal of an unknown type names
// the types a client may use.
func TestUnknownCertificateTypeNamesTheTypes(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	r, m := postPEM(t, a, "/organisations/"+oid+"/certificates/TRANSPORT", webtest.ValidCert(t, "p256", "c"))
	msg := fieldsOf(m)["OrganisationCertificateType"]
	if r.StatusCode != 422 {
		t.Fatalf("%d %v", r.StatusCode, m)
	}
	for _, want := range []string{"TRANSPORT", "qwac", "qseal", "rtswac", "rtsseal", "brseal", "brseal_ext", "rtstransport_rs"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal %q does not name %s", msg, want)
		}
	}
}

// TestRevocationReasonsReadAsWords: the reasons offered to revoke a
// certificate or key material, and the reason shown once revoked, were the
// wire codes (keycompromise, cessationofoperation). They read as words;
// the values sent stay the codes.
func TestRevocationReasonsReadAsWords(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	_, cert := postPEM(t, a, "/organisations/"+oid+"/certificates/qseal", webtest.ValidCert(t, "p256", "seal.acme.example"))
	k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &k.PublicKey})
	km := a.must(201, "POST", "/organisations/"+oid+"/key-material", `{"PublicJwk":`+string(pub)+`,"Use":"sig"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	kmPage := env.URL + "/organisations/" + oid + "/key-material/" + km["KeyMaterialID"].(string)
	for _, u := range []string{
		env.URL + "/organisations/" + oid + "/certificates/kid/" + cert["kid"].(string) + "/revoke",
		kmPage + "/revoke", // its own step, as a certificate's (issue 40)
	} {
		_, doc := page(t, c, u)
		opts := doc.Find("select[name=RevokeReason] option")
		if opts.Length() != 5 {
			t.Fatalf("%s: %d reasons", u, opts.Length())
		}
		opts.Each(func(_ int, o *goquery.Selection) {
			v, _ := o.Attr("value")
			if o.Text() == v || !strings.Contains(o.Text(), " ") && v != "unspecified" && v != "superseded" {
				t.Errorf("%s: the reason %s reads %q", u, v, o.Text())
			}
		})
	}
	status, _ := postForm(t, c, kmPage, url.Values{"Status": {"Revoked"}, "Use": {"sig"}, "RevokeReason": {"keycompromise"}})
	if status != http.StatusOK {
		t.Fatalf("revoke: status %d", status)
	}
	_, doc := page(t, c, kmPage)
	if txt := doc.Find("main dl").Text(); strings.Contains(txt, "keycompromise") || !strings.Contains(txt, "Key compromise") {
		t.Errorf("the revoked key says %q", strings.Join(strings.Fields(txt), " "))
	}
}

// TestPastedPrivateKeyIsNotShownBack: key material or a certificate pasted
// with its private key is refused ("never send a private key"), and the
// refused form showed the private key again in its field, in the page. The
// field comes back empty; the message says why.
func TestPastedPrivateKeyIsNotShownBack(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	privPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	lines := strings.Split(privPEM, "\n")
	body := lines[len(lines)-3] // the last line of the key itself
	jwk, _ := json.Marshal(jose.JSONWebKey{Key: k})
	var members map[string]string
	_ = json.Unmarshal(jwk, &members)
	dValue := members["d"] // the private member of the JWK

	for _, key := range []string{privPEM, string(jwk)} {
		status, doc := postForm(t, c, env.URL+"/organisations/"+oid+"/key-material", url.Values{"Key": {key}, "Use": {"sig"}})
		if status != http.StatusUnprocessableEntity || doc.Find("[data-testid=error-Key]").Text() == "" {
			t.Fatalf("key material: status %d, message %q", status, doc.Find("[data-testid=error-Key]").Text())
		}
		if shown := doc.Find("textarea[name=Key]").Text(); strings.Contains(shown, body) || strings.Contains(shown, dValue) {
			t.Errorf("key material: the refused form shows the private key %.20s", key)
		}
	}

	cert := webtest.ValidCert(t, "p256", "seal.acme.example")
	status, doc := postForm(t, c, env.URL+"/organisations/"+oid+"/certificates/new/review", url.Values{"type": {"qseal"}, "PEM": {cert + privPEM}})
	if status != http.StatusUnprocessableEntity || !strings.Contains(doc.Text(), "private key") {
		t.Fatalf("certificate: status %d", status)
	}
	if shown := doc.Find("textarea[name=PEM]").Text(); strings.Contains(shown, body) {
		t.Error("certificate: the refused form shows the private key")
	}
}

// TestCertificateReviewNeverKeepsAPrivateKey: the certificate wizard keeps
// the pasted text in the session (the database) between its review POST
// and the review page, for the session's life; a paste holding a private
// key is refused at the POST and nothing of it is written.
func TestCertificateReviewNeverKeepsAPrivateKey(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	privPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	lines := strings.Split(privPEM, "\n")
	secret := lines[len(lines)-3]
	cert := webtest.ValidCert(t, "p256", "seal.acme.example")
	status, doc := postForm(t, c, env.URL+"/organisations/"+oid+"/certificates/new/review", url.Values{"type": {"qseal"}, "PEM": {cert + privPEM}})
	if status != http.StatusUnprocessableEntity || !strings.Contains(doc.Text(), "private key") {
		t.Fatalf("a certificate with its private key: status %d", status)
	}
	rows, err := env.DB.SQL().QueryContext(context.Background(), `SELECT data FROM sessions`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), secret) {
			t.Fatal("the private key was written to the sessions table")
		}
	}
}

// TestCertificateKeptAsItsPEMOnly: text before the certificate's PEM
// block (which the parser skips) is not kept with it: a NUL there
// (PostgreSQL's text holds none), bytes that are not UTF-8 or a direction
// mark were stored and served back as the certificate's PEM.
func TestCertificateKeptAsItsPEMOnly(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Pem"))["OrganisationId"].(string)
	for _, before := range []string{"junk\x00\n", "\xff\xfe junk\n", "\u202e\n", "subject=CN=x\r\n"} {
		cert := webtest.ValidCert(t, "p256", "c")
		r, m := postPEM(t, a, "/organisations/"+oid+"/certificates/qseal", before+cert)
		if r.StatusCode != 201 {
			t.Fatalf("upload with %q before: %d %v", before, r.StatusCode, m)
		}
		got := a.must(200, "GET", "/organisations/"+oid+"/certificates/kid/"+m["kid"].(string), "")
		if got["PEM"] != cert {
			t.Errorf("upload with %q before kept %q, want the certificate's PEM only", before, got["PEM"])
		}
	}
}
