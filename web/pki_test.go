package web_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ocsp"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/orgkeys"
	"github.com/trustframe/trustframe/pki"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

// issueFor stores a certificate the env's CA issued for orgID (and appID),
// as the issuing endpoint writes it; it returns the stored record and the
// parsed certificate.
func issueFor(t testing.TB, env *webtest.Env, orgID, appID, use string) (store.Certificate, *x509.Certificate) {
	t.Helper()
	p := env.Server.PKI()
	if p == nil {
		t.Fatal("the CA is off")
	}
	// The CA issues only for an Active organisation (store.AddCertificate
	// checks it again): the test's organisation is made Active here.
	if _, err := env.DB.SQL().ExecContext(context.Background(), `UPDATE organisations SET status = 'Active' WHERE organisation_id = ?`, orgID); err != nil {
		t.Fatal(err)
	}
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	serial, _ := pki.Serial()
	now := time.Now()
	der, err := p.CA.Issue(pki.Leaf{Key: key.Public(), Subject: pkix.Name{CommonName: "Test leaf"}, Use: use, Serial: serial,
		NotBefore: now.Add(-time.Minute), NotAfter: now.Add(24 * time.Hour)}, pki.URLsUnder(env.URL))
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pemText := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	parsed, err := orgkeys.ParseCertificate(pemText, now, "")
	if err != nil {
		t.Fatal(err)
	}
	c, err := env.DB.AddCertificate(context.Background(), store.Audit{Actor: "admin@example.com"}, store.Certificate{Kid: pki.Thumbprint(der),
		OrganisationID: orgID, OrganisationCertificateType: use, SubjectDN: cert.Subject.String(), IssuerDN: cert.Issuer.String(),
		SerialNumber: directory.SerialText(serial), NotBefore: cert.NotBefore, NotAfter: cert.NotAfter,
		PEM: pemText, PublicJwk: parsed.JWK, SoftwareStatementID: appID, IssuedByCA: true})
	if err != nil {
		t.Fatal(err)
	}
	return c, cert
}

func get(t *testing.T, u string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func caOf(t *testing.T, base string) *x509.Certificate {
	t.Helper()
	resp, b := get(t, base+"/pki/ca.crt")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/pkix-cert" {
		t.Fatalf("ca.crt: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	c, err := x509.ParseCertificate(b)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func crlAt(t *testing.T, base string, ca *x509.Certificate) *x509.RevocationList {
	t.Helper()
	resp, b := get(t, base+"/pki/crl")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/pkix-crl" {
		t.Fatalf("crl: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	crl, err := x509.ParseRevocationList(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := crl.CheckSignatureFrom(ca); err != nil {
		t.Fatalf("the CRL is not signed by the CA: %v", err)
	}
	return crl
}

func onCRL(crl *x509.RevocationList, cert *x509.Certificate) (x509.RevocationListEntry, bool) {
	for _, e := range crl.RevokedCertificateEntries {
		if e.SerialNumber.Cmp(cert.SerialNumber) == 0 {
			return e, true
		}
	}
	return x509.RevocationListEntry{}, false
}

// ocspPost asks base's responder about cert by POST.
func ocspPost(t *testing.T, base string, cert, issuer *x509.Certificate, h crypto.Hash) *ocsp.Response {
	t.Helper()
	req, err := ocsp.CreateRequest(cert, issuer, &ocsp.RequestOptions{Hash: h})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(base+"/pki/ocsp", "application/ocsp-request", bytes.NewReader(req))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/ocsp-response" {
		t.Fatalf("OCSP POST: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	r, err := ocsp.ParseResponseForCert(b, cert, issuer)
	if err != nil {
		t.Fatalf("OCSP answer: %v", err)
	}
	return r
}

func TestPKIPublishesTheCA(t *testing.T) {
	env := webtest.Start(t, func(c *web.Config) { c.FederationOrganizationName = "Example Directory" })
	ca := caOf(t, env.URL)
	if !ca.IsCA || ca.Subject.CommonName != "Example Directory Issuing CA" || ca.PublicKeyAlgorithm != x509.ECDSA {
		t.Fatalf("CA %s, %v", ca.Subject, ca.PublicKeyAlgorithm)
	}
	if d := time.Until(ca.NotAfter); d < 3640*24*time.Hour {
		t.Errorf("valid for %v", d)
	}
	resp, b := get(t, env.URL+"/pki/ca.pem")
	blk, _ := pem.Decode(b)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/x-pem-file" || blk == nil || !bytes.Equal(blk.Bytes, ca.Raw) {
		t.Fatalf("ca.pem: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	crl := crlAt(t, env.URL, ca)
	if crl.Number.Int64() < 1 || len(crl.RevokedCertificateEntries) != 0 {
		t.Fatalf("CRL %v with %d entries", crl.Number, len(crl.RevokedCertificateEntries))
	}
	if d := crl.NextUpdate.Sub(crl.ThisUpdate); d != 24*time.Hour {
		t.Errorf("next update after %v", d)
	}
}

func TestPKIOffIs404(t *testing.T) {
	env := webtest.Start(t, func(c *web.Config) { c.PKI = false })
	for _, p := range []string{"/pki/ca.pem", "/pki/ca.crt", "/pki/crl", "/pki/ocsp/MAMCAQA"} {
		if resp, _ := get(t, env.URL+p); resp.StatusCode != 404 {
			t.Errorf("%s: %d", p, resp.StatusCode)
		}
	}
	resp, err := http.Post(env.URL+"/pki/ocsp", "application/ocsp-request", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("POST /pki/ocsp: %d", resp.StatusCode)
	}
	if _, err := env.DB.CAState(context.Background()); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a CA was made without --pki: %v", err)
	}
}

func TestPKIOCSPAndCRLFollowARevocation(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("OCSP Bank"))["OrganisationId"].(string)
	aid := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"App"}`)["SoftwareStatementId"].(string)
	ca := caOf(t, env.URL)
	before := crlAt(t, env.URL, ca).Number.Int64()
	c, cert := issueFor(t, env, oid, aid, pki.UseTransport)
	_, otherCert := issueFor(t, env, oid, aid, pki.UseSigning)

	for _, h := range []crypto.Hash{crypto.SHA1, crypto.SHA256} {
		if r := ocspPost(t, env.URL, cert, ca, h); r.Status != ocsp.Good {
			t.Fatalf("%v: status %d before the revocation", h, r.Status)
		}
	}
	// The certificate's record says the CA issued it.
	got := a.must(200, "GET", "/organisations/"+oid+"/certificates/kid/"+c.Kid, "")
	if got["IssuedByDirectoryCA"] != true || got["SoftwareStatementId"] != aid {
		t.Fatalf("record %v", got)
	}

	a.must(204, "PUT", "/organisations/"+oid+"/certificates/kid/"+c.Kid, `{"RevokeReason":"keycompromise"}`)
	r := ocspPost(t, env.URL, cert, ca, crypto.SHA1)
	if r.Status != ocsp.Revoked || r.RevocationReason != ocsp.KeyCompromise || time.Since(r.RevokedAt) > time.Minute {
		t.Fatalf("after the revocation: status %d reason %d at %v", r.Status, r.RevocationReason, r.RevokedAt)
	}
	if err := r.CheckSignatureFrom(ca); err != nil {
		t.Fatal(err)
	}
	crl := crlAt(t, env.URL, ca)
	if crl.Number.Int64() != before+1 {
		t.Fatalf("CRL number %v, want %d", crl.Number, before+1)
	}
	if e, ok := onCRL(crl, cert); !ok || e.ReasonCode != pki.ReasonKeyCompromise {
		t.Fatalf("not on the CRL: %+v %v", e, ok)
	}
	if _, ok := onCRL(crl, otherCert); ok {
		t.Fatal("the other certificate is on the CRL")
	}
	if r := ocspPost(t, env.URL, otherCert, ca, crypto.SHA1); r.Status != ocsp.Good {
		t.Fatalf("the other one: %d", r.Status)
	}
	// A refused revocation (already revoked) makes no new CRL.
	a.must(409, "PUT", "/organisations/"+oid+"/certificates/kid/"+c.Kid, `{"RevokeReason":"superseded"}`)
	if n := crlAt(t, env.URL, ca).Number.Int64(); n != before+1 {
		t.Fatalf("a refused revocation made CRL %d", n)
	}
}

func TestPKIOCSPGet(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Get Bank"))["OrganisationId"].(string)
	ca := caOf(t, env.URL)
	_, cert := issueFor(t, env, oid, "", pki.UseSeal)
	// Requests until one has a "/" and a "+" in its base64, so that the
	// escaping matters.
	var der []byte
	for range 200 {
		d, err := ocsp.CreateRequest(cert, ca, &ocsp.RequestOptions{Hash: crypto.SHA256})
		if err != nil {
			t.Fatal(err)
		}
		der = d
		if s := base64.StdEncoding.EncodeToString(d); strings.Contains(s, "/") || strings.Contains(s, "+") {
			break
		}
		_, cert = issueFor(t, env, oid, "", pki.UseSeal) // another serial
	}
	std := base64.StdEncoding.EncodeToString(der)
	for name, path := range map[string]string{
		"RFC 6960 A.1, URL-escaped": url.PathEscape(std),
		"base64url":                 base64.RawURLEncoding.EncodeToString(der),
		"padding escaped":           strings.ReplaceAll(std, "=", "%3D"),
		"unescaped":                 std,
	} {
		resp, b := get(t, env.URL+"/pki/ocsp/"+path)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/ocsp-response" {
			t.Errorf("%s: %d %s", name, resp.StatusCode, resp.Header.Get("Content-Type"))
			continue
		}
		r, err := ocsp.ParseResponseForCert(b, cert, ca)
		if err != nil || r.Status != ocsp.Good {
			t.Errorf("%s (%s): %v", name, path, err)
		}
	}
}

func TestPKIOCSPUnknown(t *testing.T) {
	env := webtest.Start(t, nil)
	ca := caOf(t, env.URL)
	// A serial the CA never issued, in a request naming this CA.
	serial, _ := pki.Serial()
	never := &x509.Certificate{SerialNumber: serial, Raw: []byte("x")}
	req, err := ocsp.CreateRequest(never, ca, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := postOCSPRaw(t, env.URL, req); r.Status != ocsp.Unknown {
		t.Fatalf("unknown serial: %d", r.Status)
	}
	// A request about another CA's certificate.
	otherDER, otherKey, _ := pki.NewCA(pkix.Name{CommonName: "Another CA"}, pki.AlgES384, time.Now(), time.Hour)
	other, _ := pki.Load(otherDER, otherKey)
	req, _ = ocsp.CreateRequest(never, other.Cert, nil)
	if r := postOCSPRaw(t, env.URL, req); r.Status != ocsp.Unknown {
		t.Fatalf("another issuer: %d", r.Status)
	}
	// An upload's serial (not the CA's) is unknown too.
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Upload Bank"))["OrganisationId"].(string)
	c, cert := issueFor(t, env, oid, "", pki.UseSeal)
	if _, err := env.DB.AddCertificate(context.Background(), store.Audit{Actor: "x"}, store.Certificate{Kid: c.Kid + "u", OrganisationID: oid,
		OrganisationCertificateType: "qseal", SerialNumber: "0F", PEM: c.PEM, PublicJwk: c.PublicJwk}); err != nil {
		t.Fatal(err)
	}
	cert.SerialNumber.SetInt64(15)
	req, _ = ocsp.CreateRequest(cert, ca, nil)
	if r := postOCSPRaw(t, env.URL, req); r.Status != ocsp.Unknown {
		t.Fatalf("an upload's serial: %d", r.Status)
	}
}

func postOCSPRaw(t *testing.T, base string, req []byte) *ocsp.Response {
	t.Helper()
	resp, err := http.Post(base+"/pki/ocsp", "application/ocsp-request", bytes.NewReader(req))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r, err := ocsp.ParseResponse(b, nil)
	if err != nil {
		t.Fatalf("%d: %v", resp.StatusCode, err)
	}
	return r
}

func TestPKIOCSPMalformedRequests(t *testing.T) {
	env := webtest.Start(t, nil)
	malformed := func(name string, resp *http.Response, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || !bytes.Equal(b, ocsp.MalformedRequestErrorResponse) {
			t.Errorf("%s: %d %x", name, resp.StatusCode, b)
		}
		var re ocsp.ResponseError
		if _, err := ocsp.ParseResponse(b, nil); !errors.As(err, &re) || re.Status != ocsp.Malformed {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, body := range map[string]string{"empty": "", "junk": "hello", "DER of something else": "\x30\x03\x02\x01\x00",
		"too long": strings.Repeat("A", 64<<10)} {
		resp, err := http.Post(env.URL+"/pki/ocsp", "application/ocsp-request", strings.NewReader(body))
		malformed("POST "+name, resp, err)
	}
	for _, p := range []string{"not%20base64!", "%00", "MAMCAQA", "%2F%2F", "", "a/b/c", "%zz"} {
		resp, err := http.Get(env.URL + "/pki/ocsp/" + p)
		if p == "%zz" {
			// Go's client refuses to send it; a raw request would get 400 from net/http.
			continue
		}
		malformed("GET "+p, resp, err)
	}
}

func TestPKIWithdrawalRevokesWhatTheCAIssued(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Gone Bank"))["OrganisationId"].(string)
	aid := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Gone App"}`)["SoftwareStatementId"].(string)
	keep := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Kept App"}`)["SoftwareStatementId"].(string)
	ca := caOf(t, env.URL)
	_, appCert := issueFor(t, env, oid, aid, pki.UseTransport)
	_, keptCert := issueFor(t, env, oid, keep, pki.UseTransport)
	_, sealCert := issueFor(t, env, oid, "", pki.UseSeal)

	a.must(200, "PUT", "/organisations/"+oid+"/softwarestatements/"+aid, `{"ClientName":"Gone App","Status":"Withdrawn"}`)
	if r := ocspPost(t, env.URL, appCert, ca, crypto.SHA1); r.Status != ocsp.Revoked || r.RevocationReason != ocsp.CessationOfOperation {
		t.Fatalf("the withdrawn application's: %d %d", r.Status, r.RevocationReason)
	}
	for _, c := range []*x509.Certificate{keptCert, sealCert} {
		if r := ocspPost(t, env.URL, c, ca, crypto.SHA1); r.Status != ocsp.Good {
			t.Fatalf("%v: %d", c.SerialNumber, r.Status)
		}
	}
	a.must(200, "PUT", "/organisations/"+oid, strings.TrimSuffix(org("Gone Bank"), "}")+`,"Status":"Withdrawn"}`)
	crl := crlAt(t, env.URL, ca)
	for _, c := range []*x509.Certificate{appCert, keptCert, sealCert} {
		if e, ok := onCRL(crl, c); !ok || e.ReasonCode != pki.ReasonCessationOfOperation {
			t.Errorf("%v: %+v %v", c.SerialNumber, e, ok)
		}
		if r := ocspPost(t, env.URL, c, ca, crypto.SHA1); r.Status != ocsp.Revoked {
			t.Errorf("%v: OCSP %d", c.SerialNumber, r.Status)
		}
	}
}

func TestPKIKeepsTheCAAcrossStarts(t *testing.T) {
	dir := t.TempDir()
	db := webtest.Database(t, dir)
	first := webtest.StartOn(t, dir, db, nil)
	ca := caOf(t, first.URL)
	second := webtest.StartOn(t, dir, db, func(c *web.Config) { c.PKIKeyAlg = pki.AlgRS3072; c.PKIName = "CN=Another" })
	if again := caOf(t, second.URL); !bytes.Equal(again.Raw, ca.Raw) {
		t.Fatalf("a second start made another CA: %s", again.Subject)
	}
	st, err := second.DB.CAState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(st.SealedKey, []byte("PRIVATE")) || st.Alg != pki.AlgES384 {
		t.Fatalf("stored %s, sealed key of %d bytes", st.Alg, len(st.SealedKey))
	}
}

func TestPKIRefusesAnotherKEK(t *testing.T) {
	dir := t.TempDir()
	db := webtest.Database(t, dir)
	webtest.StartOn(t, dir, db, nil)
	// The database's CA key is sealed with dir's KEK: another KEK cannot open it.
	other := t.TempDir()
	dbh, err := store.Open(context.Background(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dbh.Close()
	// The KEK check of the keyring runs first; make it pass with a
	// database whose SSA keys are gone but whose CA stays.
	st, _ := dbh.CAState(context.Background())
	fresh := webtest.Database(t, other)
	dbf, err := store.Open(context.Background(), fresh, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dbf.Close()
	if _, err := dbf.KeepCA(context.Background(), st.CertDER, st.SealedKey, st.Alg); err != nil {
		t.Fatal(err)
	}
	cfg := web.Config{BaseURL: "http://127.0.0.1:1", DataDir: other, PKI: true}
	if _, err := web.NewServer(context.Background(), cfg, dbf); err == nil || !strings.Contains(err.Error(), "does not open with this KEK") {
		t.Fatalf("got %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, "kek.key")); err != nil {
		t.Fatalf("the other KEK: %v", err)
	}
}

func TestPKIStartRefusesBadFlags(t *testing.T) {
	for _, c := range []struct {
		mod  func(*web.Config)
		want string
	}{
		{func(c *web.Config) { c.PKIKeyAlg = "ES256" }, `--pki-key-alg "ES256"`},
		{func(c *web.Config) { c.PKIName = "CN=a+O=b" }, "--pki-name: at character 5: a multi-valued RDN"},
		{func(c *web.Config) { c.PKILeafLifetime = -time.Hour }, "--pki-leaf-lifetime"},
	} {
		dir := t.TempDir()
		db, err := store.Open(context.Background(), webtest.Database(t, dir), nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg := web.Config{BaseURL: "http://127.0.0.1:1", DataDir: dir, PKI: true}
		c.mod(&cfg)
		if _, err := web.NewServer(context.Background(), cfg, db); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
		db.Close()
	}
}

func TestPKIName(t *testing.T) {
	for _, c := range []struct{ name, org, base, want string }{
		{"", "", "https://directory.example.org/x", "CN=directory.example.org Issuing CA"},
		{"", "Open Finance Directory", "https://d.example", "CN=Open Finance Directory Issuing CA"},
		{"", strings.Repeat("x", 70), "https://d.example", "CN=" + strings.Repeat("x", 53) + " Issuing CA"},
		{"CN=Root,O=Example\\, Ltd,C=GB", "ignored", "https://d.example", "CN=Root,O=Example\\, Ltd,C=GB"},
	} {
		n, err := web.PKIName(c.name, c.org, c.base)
		if err != nil || n.String() != c.want {
			t.Errorf("%q %q: %s %v, want %s", c.name, c.org, n.String(), err, c.want)
		}
	}
}

func TestPKIConsolePage(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Page Bank"))["OrganisationId"].(string)
	c, _ := issueFor(t, env, oid, "", pki.UseSeal)
	issueFor(t, env, oid, "", pki.UseSeal)
	a.must(204, "PUT", "/organisations/"+oid+"/certificates/kid/"+c.Kid, `{"RevokeReason":"superseded"}`)
	browser := webtest.Browser()
	webtest.SignIn(t, browser, env.URL, "admin@example.com").Body.Close()
	// Reference Data links it.
	if _, refs := page(t, browser, env.URL+"/references"); refs.Find(`[data-testid="ref-certificate-authority"]`).AttrOr("href", "") != "/references/certificate-authority" {
		t.Fatal("Reference Data does not link the certificate authority")
	}
	resp, err := browser.Get(env.URL + "/references/certificate-authority")
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	if resp.StatusCode != 200 {
		t.Fatalf("%d", resp.StatusCode)
	}
	ca := caOf(t, env.URL)
	crl := crlAt(t, env.URL, ca)
	for id, want := range map[string]string{"ca-subject": ca.Subject.String(), "ca-alg": "ECDSA P-384 (ES384)", "ca-issued": "2", "ca-revoked": "1",
		"ca-crl-number": crl.Number.String(), "ca-serial": directory.SerialText(ca.SerialNumber)} {
		if got := strings.TrimSpace(doc.Find(`[data-testid="` + id + `"]`).Text()); got != want {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
	if fp := doc.Find(`[data-testid="ca-fingerprint"]`).Text(); len(fp) != 32*3-1 {
		t.Errorf("fingerprint %q", fp)
	}
	for _, id := range []string{"ca-pem", "ca-der", "ca-crl"} {
		if href, _ := doc.Find(`[data-testid="` + id + `"]`).Attr("href"); !strings.HasPrefix(href, "/pki/") {
			t.Errorf("%s: %q", id, href)
		}
	}
	// Data Administrators do not see it.
	newAPIWithInvite(t, env, a, "dana@example.com")
	dana := webtest.Browser()
	webtest.SignIn(t, dana, env.URL, "dana@example.com").Body.Close()
	if resp, err := dana.Get(env.URL + "/references/certificate-authority"); err != nil || resp.StatusCode != 403 {
		t.Fatalf("Data Administrator: %v %v", resp.StatusCode, err)
	}
	// With the CA off the page says how to turn it on.
	off := webtest.Start(t, func(c *web.Config) { c.PKI = false })
	b2 := webtest.Browser()
	webtest.SignIn(t, b2, off.URL, "admin@example.com").Body.Close()
	resp, err = b2.Get(off.URL + "/references/certificate-authority")
	if err != nil {
		t.Fatal(err)
	}
	if d := docOf(t, resp); d.Find(`[data-testid="ca-off"]`).Length() != 1 {
		t.Fatal("no word of the CA being off")
	}
}

// TestPKIAcrossInstances: two instances on one PostgreSQL database (same
// data directory, so the same KEK) use one CA, number their CRLs in one
// sequence, and a revocation through either is answered by the other's
// OCSP responder and CRL at once (docs/design.md §18).
func TestPKIAcrossInstances(t *testing.T) {
	needInstances(t)
	dir := t.TempDir()
	a := webtest.StartIn(t, dir, nil)
	b := webtest.StartOn(t, dir, webtest.Database(t, dir), func(c *web.Config) { c.BaseURL = a.URL })
	ca := caOf(t, a.URL)
	if onB := caOf(t, b.URL); !bytes.Equal(onB.Raw, ca.Raw) {
		t.Fatal("the instances made two CAs")
	}
	onA := newAPI(t, a, "admin@example.com")
	onB := &api{t: t, base: b.URL, token: onA.token}
	oid := onA.must(201, "POST", "/organisations", org("Shared Bank"))["OrganisationId"].(string)
	aid := onA.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Shared App"}`)["SoftwareStatementId"].(string)
	var certs []*x509.Certificate
	var kids []string
	for range 4 {
		c, cert := issueFor(t, a, oid, aid, pki.UseTransport)
		certs, kids = append(certs, cert), append(kids, c.Kid)
	}
	start := crlAt(t, b.URL, ca).Number.Int64()
	if n := crlAt(t, a.URL, ca).Number.Int64(); n != start {
		t.Fatalf("A serves CRL %d, B %d", n, start)
	}
	// Revocations through A and B in turn: each is seen by the other at
	// once, and the CRL numbers go up by one each time whoever revokes.
	for i, kid := range kids {
		by, other := onA, b
		if i%2 == 1 {
			by, other = onB, a
		}
		by.must(204, "PUT", "/organisations/"+oid+"/certificates/kid/"+kid, `{"RevokeReason":"keycompromise"}`)
		if r := ocspPost(t, other.URL, certs[i], ca, crypto.SHA1); r.Status != ocsp.Revoked || r.RevocationReason != ocsp.KeyCompromise {
			t.Fatalf("revocation %d: the other instance's OCSP says %d", i, r.Status)
		}
		crl := crlAt(t, other.URL, ca)
		if crl.Number.Int64() != start+int64(i)+1 {
			t.Fatalf("revocation %d: the other instance serves CRL %v, want %d", i, crl.Number, start+int64(i)+1)
		}
		if _, ok := onCRL(crl, certs[i]); !ok {
			t.Fatalf("revocation %d is not on the other instance's CRL", i)
		}
	}
	// Concurrent revocations through both: no number is used twice.
	var more []string
	for range 6 {
		c, _ := issueFor(t, b, oid, aid, pki.UseSigning)
		more = append(more, c.Kid)
	}
	before := crlAt(t, a.URL, ca).Number.Int64()
	done := make(chan int)
	for i, kid := range more {
		by := onA
		if i%2 == 1 {
			by = onB
		}
		go func() {
			resp, _ := by.do("PUT", "/organisations/"+oid+"/certificates/kid/"+kid, `{"RevokeReason":"superseded"}`)
			done <- resp.StatusCode
		}()
	}
	for range more {
		if code := <-done; code != 204 {
			t.Errorf("a concurrent revocation: %d", code)
		}
	}
	crl := crlAt(t, b.URL, ca)
	if crl.Number.Int64() != before+int64(len(more)) || len(crl.RevokedCertificateEntries) != len(kids)+len(more) {
		t.Fatalf("after %d concurrent revocations: CRL %v (from %d) with %d entries", len(more), crl.Number, before, len(crl.RevokedCertificateEntries))
	}
}

// TestPKIWithOpenSSL: Debian's openssl reads the CRL, verifies an issued
// certificate against the CA and CRL, and asks the OCSP responder
// (.ci/test installs Debian's openssl, so CI always runs it; a machine
// without openssl skips it, saying so).
func TestPKIWithOpenSSL(t *testing.T) {
	bin := openssl(t)
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("OpenSSL Bank"))["OrganisationId"].(string)
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	_, caPEM := get(t, env.URL+"/pki/ca.pem")
	caFile := write("ca.pem", caPEM)
	good, _ := issueFor(t, env, oid, "", pki.UseTransport)
	bad, _ := issueFor(t, env, oid, "", pki.UseTransport)
	goodFile, badFile := write("good.pem", []byte(good.PEM)), write("bad.pem", []byte(bad.PEM))
	a.must(204, "PUT", "/organisations/"+oid+"/certificates/kid/"+bad.Kid, `{"RevokeReason":"keycompromise"}`)
	_, crlDER := get(t, env.URL+"/pki/crl")
	crlFile := write("crl.der", crlDER)
	run := func(args ...string) (string, error) {
		out, err := exec.Command(bin, args...).CombinedOutput()
		return string(out), err
	}
	if out, err := run("crl", "-inform", "DER", "-in", crlFile, "-noout", "-text"); err != nil || !strings.Contains(out, "Key Compromise") || !strings.Contains(out, "X509v3 CRL Number") {
		t.Fatalf("openssl crl: %v\n%s", err, out)
	}
	crlPEM := write("crl.pem", pem.EncodeToMemory(&pem.Block{Type: "X509 CRL", Bytes: crlDER}))
	if out, err := run("verify", "-crl_check", "-CAfile", caFile, "-CRLfile", crlPEM, goodFile); err != nil {
		t.Fatalf("openssl verify of the good one: %v\n%s", err, out)
	}
	if out, err := run("verify", "-crl_check", "-CAfile", caFile, "-CRLfile", crlPEM, badFile); err == nil || !strings.Contains(out, "revoked") {
		t.Fatalf("openssl verify of the revoked one: %v\n%s", err, out)
	}
	for file, want := range map[string]string{goodFile: ": good", badFile: ": revoked"} {
		out, err := run("ocsp", "-issuer", caFile, "-CAfile", caFile, "-cert", file, "-url", env.URL+"/pki/ocsp", "-resp_text")
		if err != nil || !strings.Contains(out, want) || !strings.Contains(out, "Response verify OK") {
			t.Fatalf("openssl ocsp: %v\n%s", err, out)
		}
	}
}

// openssl is the path of Debian's openssl. .ci/test installs it, so under
// CI=true a missing one fails the test; elsewhere the test is skipped,
// saying how to install it.
func openssl(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("openssl")
	if err != nil && os.Getenv("CI") == "true" {
		t.Fatal("openssl is missing although .ci/test installs it: the CA's openssl checks would not run")
	}
	if err != nil {
		t.Skip("openssl is not installed: `bash .ci/test` installs it (apt-get install openssl)")
	}
	return bin
}
