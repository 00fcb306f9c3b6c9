package web_test

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trustframe/trustframe/pki"
	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

var (
	oidOrgIdentifier = asn1.ObjectIdentifier{2, 5, 4, 97}
	oidUID           = asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 1}
)

// pkiSetup is a server with the directory's CA on (or off, ca nil), an
// Active organisation with a legal name and an Active application.
type pkiSetup struct {
	env      *webtest.Env
	ca       *pki.CA
	a        *api
	oid, aid string
}

func startPKI(t *testing.T, on bool, mod func(*web.Config)) pkiSetup {
	t.Helper()
	env := webtest.Start(t, func(c *web.Config) {
		c.PKI = on // the CA made at start; on, replaced below by the test's own
		if mod != nil {
			mod(c)
		}
	})
	var ca *pki.CA
	if on {
		ca = mustCA(t)
		env.Server.SetCA(ca)
	}
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", `{"OrganisationName":"Acme Payments","LegalEntityName":"Acme Payments Ltd","RegistrationNumber":"GB-123456","CountryOfRegistration":"GB","Status":"Active"}`)["OrganisationId"].(string)
	aid := a.must(201, "POST", "/organisations/"+oid+"/softwarestatements", `{"ClientName":"Acme Wallet","RedirectUri":["https://acme.example/cb"]}`)["SoftwareStatementId"].(string)
	return pkiSetup{env: env, ca: ca, a: a, oid: oid, aid: aid}
}

func mustCA(t testing.TB) *pki.CA {
	t.Helper()
	certDER, keyDER, err := pki.NewCA(pkix.Name{CommonName: "Test Directory Issuing CA"}, pki.AlgES384, time.Now(), 10*365*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := pki.Load(certDER, keyDER)
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

func mustKey(t testing.TB, kind string) crypto.Signer {
	t.Helper()
	var k crypto.Signer
	var err error
	switch kind {
	case "p256":
		k, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "p384":
		k, err = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case "p521":
		k, err = ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	case "rsa1024":
		k, err = rsa.GenerateKey(rand.Reader, 1024)
	default:
		k, err = rsa.GenerateKey(rand.Reader, 2048)
	}
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// mustCSR is a DER CSR for key with subject.
func mustCSR(t testing.TB, key crypto.Signer, subject pkix.Name) []byte {
	t.Helper()
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: subject}, key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func csrPEM(der []byte) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}))
}

// issue posts body as ct to path (under /api) with accept, and reads the
// answer: its status, JSON, and raw body.
func (p pkiSetup) issue(t *testing.T, path, ct string, body []byte, accept string) (*http.Response, map[string]any, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", p.env.URL+"/api"+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Authorization", "Bearer "+p.a.token)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return resp, m, b
}

func (p pkiSetup) appCerts() string {
	return "/organisations/" + p.oid + "/softwarestatements/" + p.aid + "/certificates"
}

func parseLeaf(t *testing.T, pemText string) *x509.Certificate {
	t.Helper()
	blk, _ := pem.Decode([]byte(pemText))
	if blk == nil {
		t.Fatalf("no PEM in %q", pemText)
	}
	c, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func nameValue(n pkix.Name, oid asn1.ObjectIdentifier) string {
	for _, atv := range n.Names {
		if atv.Type.Equal(oid) {
			s, _ := atv.Value.(string)
			return s
		}
	}
	return ""
}

func TestPKIIssueEachTypeEachBody(t *testing.T) {
	p := startPKI(t, true, nil)
	roots := x509.NewCertPool()
	roots.AddCert(p.ca.Cert)
	cases := []struct {
		use, key, ct string
		body         func(der []byte) []byte
		keyUsage     x509.KeyUsage
		extUsage     []x509.ExtKeyUsage
	}{
		{"transport", "p256", "application/x-pem-file", func(d []byte) []byte { return []byte(csrPEM(d)) },
			x509.KeyUsageDigitalSignature, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth}},
		{"signing", "p384", "application/pkcs10", func(d []byte) []byte { return d }, x509.KeyUsageDigitalSignature, nil},
		{"encryption", "rsa2048", "application/json", func(d []byte) []byte { return []byte(mustMarshal(map[string]string{"CSR": csrPEM(d)})) },
			x509.KeyUsageKeyEncipherment, nil},
	}
	for _, c := range cases {
		t.Run(c.use, func(t *testing.T) {
			// The CSR may name the directory's values, or leave them out: here the CN.
			der := mustCSR(t, mustKey(t, c.key), pkix.Name{CommonName: "Acme Wallet"})
			resp, m, _ := p.issue(t, p.appCerts()+"/"+c.use, c.ct, c.body(der), "")
			if resp.StatusCode != 201 {
				t.Fatalf("%d %v", resp.StatusCode, m)
			}
			if m["x5t#S256"] != m["kid"] || m["SoftwareStatementId"] != p.aid || m["IssuedByDirectoryCA"] != true ||
				m["OrganisationCertificateType"] != c.use || m["Status"] != "Active" {
				t.Fatalf("answer %v", m)
			}
			if loc := resp.Header.Get("Location"); loc != "/api"+p.appCerts()+"/kid/"+m["kid"].(string) {
				t.Fatalf("Location %q", loc)
			}
			leaf := parseLeaf(t, m["PEM"].(string))
			sum := sha256.Sum256(leaf.Raw)
			if base64.RawURLEncoding.EncodeToString(sum[:]) != m["kid"] {
				t.Fatal("kid is not the SHA-256 of the DER")
			}
			if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err != nil {
				t.Fatalf("the chain does not verify to the CA: %v", err)
			}
			if leaf.KeyUsage != c.keyUsage || len(leaf.ExtKeyUsage) != len(c.extUsage) {
				t.Fatalf("key usage %v %v, want %v %v", leaf.KeyUsage, leaf.ExtKeyUsage, c.keyUsage, c.extUsage)
			}
			for i, u := range c.extUsage {
				if leaf.ExtKeyUsage[i] != u {
					t.Fatalf("ext key usage %v, want %v", leaf.ExtKeyUsage, c.extUsage)
				}
			}
			s := leaf.Subject
			if s.CommonName != "Acme Wallet" || len(s.Country) != 1 || s.Country[0] != "GB" || len(s.Organization) != 1 || s.Organization[0] != "Acme Payments Ltd" ||
				nameValue(s, oidOrgIdentifier) != "GB-123456" || nameValue(s, oidUID) != p.aid {
				t.Fatalf("subject %v", s)
			}
			// 128 random bits: shorter than 65 once in 2^64 (pki.TestSerialIs128BitsPositiveAndRandom).
			if n := leaf.SerialNumber.BitLen(); n <= 64 || n > 128 || leaf.SerialNumber.Sign() <= 0 {
				t.Fatalf("serial %v is not 128 random bits", leaf.SerialNumber)
			}
			if life := leaf.NotAfter.Sub(leaf.NotBefore); life < 9528*time.Hour || life > 9528*time.Hour+2*time.Minute {
				t.Fatalf("lifetime %v, want 9528h", life)
			}
			if len(leaf.CRLDistributionPoints) != 1 || leaf.CRLDistributionPoints[0] != p.env.URL+"/pki/crl" ||
				len(leaf.OCSPServer) != 1 || leaf.OCSPServer[0] != p.env.URL+"/pki/ocsp" || len(leaf.IssuingCertificateURL) != 1 {
				t.Fatalf("CRL DP %v, OCSP %v, CA issuers %v", leaf.CRLDistributionPoints, leaf.OCSPServer, leaf.IssuingCertificateURL)
			}
		})
	}
	list := p.a.must(200, "GET", p.appCerts(), "")["list"].([]any)
	if len(list) != 3 {
		t.Fatalf("the application lists %d certificates, want 3", len(list))
	}
	// The audit log says they were issued.
	audit := p.a.must(200, "GET", "/audit?OrganisationId="+p.oid+"&Action=issue", "")
	if n, _ := audit["totalSize"].(float64); n != 3 || !strings.Contains(mustMarshal(audit), "issued by the directory's CA; application "+p.aid) {
		t.Fatalf("audit of the issues: %v", audit)
	}
}

func TestPKIIssueAnswersPEMChain(t *testing.T) {
	p := startPKI(t, true, nil)
	der := mustCSR(t, mustKey(t, "p256"), pkix.Name{})
	resp, _, body := p.issue(t, p.appCerts()+"/transport", "application/pkcs10", der, "application/x-pem-file")
	if resp.StatusCode != 201 || resp.Header.Get("Content-Type") != "application/x-pem-file" {
		t.Fatalf("%d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	var certs []*x509.Certificate
	for rest := body; ; {
		var blk *pem.Block
		blk, rest = pem.Decode(rest)
		if blk == nil {
			break
		}
		c, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		certs = append(certs, c)
	}
	if len(certs) != 2 || !certs[1].Equal(p.ca.Cert) || certs[0].CheckSignatureFrom(certs[1]) != nil {
		t.Fatalf("want the leaf then the CA, got %d certificates", len(certs))
	}
}

func TestPKIIssueRefusals(t *testing.T) {
	p := startPKI(t, true, nil)
	good := csrPEM(mustCSR(t, mustKey(t, "p256"), pkix.Name{}))
	post := func(path, ct, body string) (int, map[string]any) {
		resp, m, _ := p.issue(t, path, ct, []byte(body), "")
		return resp.StatusCode, m
	}
	for _, c := range []struct {
		name, use, body string
		want            int
		field, says     string
	}{
		{"not a CSR", "signing", "hello", 422, "CSR", "not a PKCS #10"},
		{"a certificate, not a CSR", "signing", webtest.ValidCert(t, "p256", "x.example"), 422, "CSR", "CERTIFICATE"},
		{"EC for encryption", "encryption", good, 422, "CSR", "RSA"},
		{"RSA 1024", "signing", csrPEM(mustCSR(t, mustKey(t, "rsa1024"), pkix.Name{})), 422, "CSR", "2048"},
		{"P-521", "signing", csrPEM(mustCSR(t, mustKey(t, "p521"), pkix.Name{})), 422, "CSR", "P-256"},
		{"contradicting O", "signing", csrPEM(mustCSR(t, mustKey(t, "p256"), pkix.Name{Organization: []string{"Evil Corp"}})), 422, "CSR", "O (LegalEntityName)"},
		{"contradicting C", "transport", csrPEM(mustCSR(t, mustKey(t, "p256"), pkix.Name{Country: []string{"FR"}})), 422, "CSR", "C (CountryOfRegistration)"},
		{"contradicting CN", "transport", csrPEM(mustCSR(t, mustKey(t, "p256"), pkix.Name{CommonName: "bank.example"})), 422, "CSR", "CN"},
		{"contradicting UID", "transport", csrPEM(mustCSR(t, mustKey(t, "p256"), pkix.Name{ExtraNames: []pkix.AttributeTypeAndValue{{Type: oidUID, Value: "another-app"}}})), 422, "CSR", "UID (SoftwareStatementId)"},
		{"unknown type", "qwac", good, 404, "", "transport"},
	} {
		status, m := post(p.appCerts()+"/"+c.use, "application/x-pem-file", c.body)
		if status != c.want || (c.field != "" && !strings.Contains(fieldsOf(m)[c.field], c.says)) || (c.field == "" && !strings.Contains(mustMarshal(m), c.says)) {
			t.Errorf("%s: %d %v, want %d with %q on %q", c.name, status, m, c.want, c.says, c.field)
		}
	}
	// A tampered CSR does not prove possession of its key.
	der := mustCSR(t, mustKey(t, "p256"), pkix.Name{})
	der[len(der)-3] ^= 0xff
	if status, m := post(p.appCerts()+"/signing", "application/pkcs10", string(der)); status != 422 || !strings.Contains(fieldsOf(m)["CSR"], "") || len(fieldsOf(m)["CSR"]) == 0 {
		t.Errorf("tampered: %d %v", status, m)
	}
	// Another organisation's application, and one that does not exist: 404.
	other := p.a.must(201, "POST", "/organisations", org("Other"))["OrganisationId"].(string)
	if status, _ := post("/organisations/"+other+"/softwarestatements/"+p.aid+"/certificates/signing", "application/x-pem-file", good); status != 404 {
		t.Errorf("another organisation's application: %d", status)
	}
	// Not Active: 409, before the CSR is looked at.
	p.a.must(200, "PUT", "/organisations/"+p.oid+"/softwarestatements/"+p.aid, `{"ClientName":"Acme Wallet","Status":"Suspended"}`)
	if status, m := post(p.appCerts()+"/signing", "application/x-pem-file", "not a CSR at all"); status != 409 || !strings.Contains(mustMarshal(m), "application_not_active") {
		t.Errorf("suspended application: %d %v", status, m)
	}
	p.a.must(200, "PUT", "/organisations/"+p.oid+"/softwarestatements/"+p.aid, `{"ClientName":"Acme Wallet","Status":"Active"}`)
	p.a.must(200, "PUT", "/organisations/"+p.oid, `{"OrganisationName":"Acme Payments","LegalEntityName":"Acme Payments Ltd","RegistrationNumber":"GB-123456","CountryOfRegistration":"GB","Status":"Pending"}`)
	for _, body := range []string{good, "not a CSR at all"} { // 409 before the CSR is looked at
		if status, m := post(p.appCerts()+"/signing", "application/x-pem-file", body); status != 409 || !strings.Contains(mustMarshal(m), "organisation_not_active") {
			t.Errorf("suspended organisation: %d %v", status, m)
		}
		if status, m := post("/organisations/"+p.oid+"/certificates/seal", "application/x-pem-file", body); status != 409 || !strings.Contains(mustMarshal(m), "organisation_not_active") {
			t.Errorf("seal of a suspended organisation: %d %v", status, m)
		}
	}
	// Nothing was issued.
	if l := p.a.must(200, "GET", p.appCerts(), "")["list"].([]any); len(l) != 0 {
		t.Fatalf("refusals issued %d certificates", len(l))
	}
}

func TestPKIOffIssuesNothing(t *testing.T) {
	p := startPKI(t, false, nil)
	good := csrPEM(mustCSR(t, mustKey(t, "p256"), pkix.Name{}))
	resp, m, _ := p.issue(t, p.appCerts()+"/transport", "application/x-pem-file", []byte(good), "")
	if resp.StatusCode != 404 || !strings.Contains(mustMarshal(m), "--pki") {
		t.Fatalf("PKI off: %d %v", resp.StatusCode, m)
	}
	// The SSA keeps the organisation's keystore and names no other.
	resp2, tok := getRaw(t, p.a, "/organisations/"+p.oid+"/softwarestatements/"+p.aid+"/assertion")
	if resp2.StatusCode != 200 {
		t.Fatalf("SSA: %d %s", resp2.StatusCode, tok)
	}
	_, claims := jwtParts(t, tok)
	if claims["software_jwks_uri"] != p.env.URL+"/keystore/"+p.oid+"/application.jwks" || claims["software_jwks_transport_uri"] != nil {
		t.Fatalf("SSA claims with the CA off: %v", claims)
	}
}

func TestPKISealForTheOrganisation(t *testing.T) {
	p := startPKI(t, true, nil)
	der := mustCSR(t, mustKey(t, "rsa2048"), pkix.Name{CommonName: "Acme Payments"})
	resp, m, _ := p.issue(t, "/organisations/"+p.oid+"/certificates/seal", "application/pkcs10", der, "")
	if resp.StatusCode != 201 || m["OrganisationCertificateType"] != "seal" || m["IssuedByDirectoryCA"] != true || m["SoftwareStatementId"] != nil {
		t.Fatalf("%d %v", resp.StatusCode, m)
	}
	leaf := parseLeaf(t, m["PEM"].(string))
	if leaf.KeyUsage != x509.KeyUsageDigitalSignature|x509.KeyUsageContentCommitment || leaf.Subject.CommonName != "Acme Payments" || nameValue(leaf.Subject, oidUID) != "" {
		t.Fatalf("seal: usage %v subject %v", leaf.KeyUsage, leaf.Subject)
	}
	// Uploads of the other types are as they were.
	if r, m := postPEM(t, p.a, "/organisations/"+p.oid+"/certificates/qseal", webtest.ValidCert(t, "p256", "up.example")); r.StatusCode != 201 || m["IssuedByDirectoryCA"] != nil {
		t.Fatalf("upload: %d %v", r.StatusCode, m)
	}
}

// appKeystore reads one of an application's keystores.
func appKeystore(t *testing.T, p pkiSetup, name string) []map[string]any {
	t.Helper()
	resp, err := http.Get(p.env.URL + "/keystore/" + p.oid + "/" + p.aid + "/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/jwk-set+json" {
		t.Fatalf("%s: %d %s", name, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var set struct {
		Keys []map[string]any `json:"keys"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
		t.Fatal(err)
	}
	return set.Keys
}

func TestPKIKeystoresRevocationAndSSA(t *testing.T) {
	p := startPKI(t, true, nil)
	kids := map[string]string{}
	for _, c := range [][2]string{{"transport", "p256"}, {"signing", "p256"}, {"encryption", "rsa2048"}} {
		_, m, _ := p.issue(t, p.appCerts()+"/"+c[0], "application/pkcs10", mustCSR(t, mustKey(t, c[1]), pkix.Name{}), "")
		kids[c[0]] = m["kid"].(string)
	}
	check := func(name string, want ...string) {
		t.Helper()
		keys := appKeystore(t, p, name)
		if len(keys) != len(want) {
			t.Fatalf("%s: %d keys, want %d", name, len(keys), len(want))
		}
		for i, k := range keys {
			x5c, _ := k["x5c"].([]any)
			if k["kid"] != kids[want[i]] || k["x5t#S256"] != k["kid"] || len(x5c) != 2 || k["use"] == nil {
				t.Fatalf("%s key %d: %v", name, i, k)
			}
			leafDER, _ := base64.StdEncoding.DecodeString(x5c[0].(string))
			caDER, _ := base64.StdEncoding.DecodeString(x5c[1].(string))
			sum := sha256.Sum256(leafDER)
			if base64.RawURLEncoding.EncodeToString(sum[:]) != k["x5t#S256"] || !bytes.Equal(caDER, p.ca.Cert.Raw) {
				t.Fatalf("%s: x5c is not the leaf then the CA", name)
			}
		}
	}
	check("application.jwks", "signing", "encryption")
	check("transport.jwks", "transport")
	check("inactive/application.jwks")
	check("inactive/transport.jwks")

	// Revoked under another application: not found; under its own: gone to inactive/.
	other := p.a.must(201, "POST", "/organisations/"+p.oid+"/softwarestatements", `{"ClientName":"Other","RedirectUri":["https://acme.example/cb"]}`)["SoftwareStatementId"].(string)
	p.a.must(404, "PUT", "/organisations/"+p.oid+"/softwarestatements/"+other+"/certificates/kid/"+kids["signing"], `{"RevokeReason":"keycompromise"}`)
	p.a.must(204, "PUT", p.appCerts()+"/kid/"+kids["signing"], `{"RevokeReason":"keycompromise"}`)
	check("application.jwks", "encryption")
	check("inactive/application.jwks", "signing")
	check("transport.jwks", "transport")

	// An application that does not exist has no keystore.
	if resp, err := http.Get(p.env.URL + "/keystore/" + p.oid + "/nope/application.jwks"); err != nil || resp.StatusCode != 404 {
		t.Fatalf("unknown application: %v %v", resp.StatusCode, err)
	}

	// The SSA points at the application's keystores.
	resp, tok := getRaw(t, p.a, "/organisations/"+p.oid+"/softwarestatements/"+p.aid+"/assertion")
	if resp.StatusCode != 200 {
		t.Fatalf("SSA: %d %s", resp.StatusCode, tok)
	}
	_, claims := jwtParts(t, tok)
	base := p.env.URL + "/keystore/" + p.oid + "/" + p.aid
	for claim, want := range map[string]string{"software_jwks_uri": base + "/application.jwks", "software_jwks_transport_uri": base + "/transport.jwks",
		"software_jwks_inactive_uri": base + "/inactive/application.jwks", "software_jwks_transport_inactive_uri": base + "/inactive/transport.jwks"} {
		if claims[claim] != want {
			t.Errorf("%s = %v, want %s", claim, claims[claim], want)
		}
	}
}

func TestPKIOrganisationAdministratorIssues(t *testing.T) {
	p := startPKI(t, true, nil)
	other := p.a.must(201, "POST", "/organisations", strings.TrimSuffix(org("Other"), "}")+`,"Status":"Active"}`)["OrganisationId"].(string)
	otherApp := p.a.must(201, "POST", "/organisations/"+other+"/softwarestatements", `{"ClientName":"Theirs","RedirectUri":["https://o.example/cb"]}`)["SoftwareStatementId"].(string)
	mustInviteOrgAdmin(t, p.env, "olga@acme.example", p.oid)
	olga := pkiSetup{env: p.env, ca: p.ca, a: newAPI(t, p.env, "olga@acme.example"), oid: p.oid, aid: p.aid}
	resp, m, _ := olga.issue(t, olga.appCerts()+"/signing", "application/pkcs10", mustCSR(t, mustKey(t, "p256"), pkix.Name{}), "")
	if resp.StatusCode != 201 {
		t.Fatalf("their application: %d %v", resp.StatusCode, m)
	}
	olga.a.must(200, "GET", olga.appCerts(), "")
	olga.a.must(204, "PUT", olga.appCerts()+"/kid/"+m["kid"].(string), `{"RevokeReason":"superseded"}`)
	theirs := pkiSetup{env: p.env, a: olga.a, oid: other, aid: otherApp}
	if resp, _, _ := theirs.issue(t, theirs.appCerts()+"/signing", "application/pkcs10", mustCSR(t, mustKey(t, "p256"), pkix.Name{}), ""); resp.StatusCode != 404 {
		t.Fatalf("another organisation's application: %d", resp.StatusCode)
	}
}

// TestPKIIssueWithOpenSSL makes the key and CSR with Debian's openssl,
// has the directory issue the certificate and openssl verify it against
// the CA's PEM.
func TestPKIIssueWithOpenSSL(t *testing.T) {
	bin := openssl(t)
	p := startPKI(t, true, nil)
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("openssl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	for _, c := range []struct{ use, newkey, purpose string }{
		{"transport", "ec", "sslclient"},
		{"signing", "ec", ""},
		{"encryption", "rsa:2048", ""},
	} {
		key, csr := filepath.Join(dir, c.use+".key"), filepath.Join(dir, c.use+".csr")
		args := []string{"req", "-new", "-newkey", c.newkey, "-nodes", "-keyout", key, "-out", csr, "-subj", "/CN=Acme Wallet"}
		if c.newkey == "ec" {
			args = append(args[:4], append([]string{"-pkeyopt", "ec_paramgen_curve:P-256"}, args[4:]...)...)
		}
		run(args...)
		csrText, err := os.ReadFile(csr)
		if err != nil {
			t.Fatal(err)
		}
		resp, _, chain := p.issue(t, p.appCerts()+"/"+c.use, "application/x-pem-file", csrText, "application/x-pem-file")
		if resp.StatusCode != 201 {
			t.Fatalf("%s: %d %s", c.use, resp.StatusCode, chain)
		}
		blk, rest := pem.Decode(chain)
		leaf, ca := filepath.Join(dir, c.use+".pem"), filepath.Join(dir, "ca.pem")
		if err := os.WriteFile(leaf, pem.EncodeToMemory(blk), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(ca, rest, 0o600); err != nil {
			t.Fatal(err)
		}
		verify := []string{"verify", "-CAfile", ca}
		if c.purpose != "" {
			verify = append(verify, "-purpose", c.purpose)
		}
		if out := run(append(verify, leaf)...); !strings.Contains(out, ": OK") {
			t.Fatalf("%s: openssl verify: %s", c.use, out)
		}
		// The certificate's key is the one openssl made.
		if run("x509", "-in", leaf, "-noout", "-pubkey") != run("pkey", "-in", key, "-pubout") {
			t.Fatalf("%s: the certificate's key is not the CSR's", c.use)
		}
	}
}

// TestPKIConsoleIssueDownloadRevoke issues from a pasted CSR on the
// application's Certificates page, downloads the certificate and its
// chain, shows a refusal beside the CSR, and revokes with a reason.
func TestPKIConsoleIssueDownloadRevoke(t *testing.T) {
	p := startPKI(t, true, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, p.env.URL, "admin@example.com").Body.Close()
	appPage := p.env.URL + "/organisations/" + p.oid + "/softwarestatements/" + p.aid
	_, doc := page(t, c, appPage)
	if href, _ := doc.Find("[data-testid=application-certificates]").Attr("href"); href != "/organisations/"+p.oid+"/softwarestatements/"+p.aid+"/certificates" {
		t.Fatalf("the application page links its certificates at %q", href)
	}
	resp, doc := page(t, c, appPage+"/certificates")
	if resp.StatusCode != 200 || doc.Find("[data-testid=issue-form]").Length() != 1 || doc.Find("[data-testid=issue-type-encryption]").Length() != 1 {
		t.Fatalf("no issuing form: %d", resp.StatusCode)
	}
	post := func(typ, csr string) (int, *http.Response) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		mw.WriteField("Type", typ)
		mw.WriteField("CSR", csr)
		mw.Close()
		req, _ := http.NewRequest("POST", appPage+"/certificates", &buf)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, resp
	}
	// Refused: an EC key for encryption, said beside the CSR, the text kept.
	ec := csrPEM(mustCSR(t, mustKey(t, "p256"), pkix.Name{}))
	status, resp := post("encryption", ec)
	doc = docOf(t, resp)
	if status != 422 || !strings.Contains(doc.Find("[data-testid=error-CSR]").Text(), "RSA") || !strings.Contains(doc.Find("#f-CSR").Text(), "BEGIN CERTIFICATE REQUEST") {
		t.Fatalf("refusal: %d %q", status, doc.Find("[data-testid=error-CSR]").Text())
	}
	// Issued: back on the page, listed.
	status, resp = post("signing", ec)
	doc = docOf(t, resp)
	if status != 200 || doc.Find("[data-testid=certificate-row]").Length() != 1 {
		t.Fatalf("issue: %d, %d rows", status, doc.Find("[data-testid=certificate-row]").Length())
	}
	kid := doc.Find("[data-testid=certificate-kid]").Text()
	for testid, want := range map[string]int{"download-pem": 1, "download-chain": 2} {
		href, _ := doc.Find("[data-testid=" + testid + "]").Attr("href")
		r, err := c.Get(p.env.URL + href)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != 200 || r.Header.Get("Content-Type") != "application/x-pem-file" || bytes.Count(b, []byte("BEGIN CERTIFICATE")) != want {
			t.Fatalf("%s: %d %s, %d certificates, want %d", testid, r.StatusCode, r.Header.Get("Content-Type"), bytes.Count(b, []byte("BEGIN CERTIFICATE")), want)
		}
		if want == 1 && parseLeaf(t, string(b)).Subject.CommonName != "Acme Wallet" {
			t.Fatal("the download is not the certificate")
		}
	}
	// Revoked with a reason on the confirmation page.
	href, _ := doc.Find("[data-testid=revoke]").Attr("href")
	if href != "/organisations/"+p.oid+"/certificates/kid/"+kid+"/revoke" {
		t.Fatalf("revoke link %q", href)
	}
	status, _ = postForm(t, c, p.env.URL+href, url.Values{"RevokeReason": {"superseded"}})
	if status != 200 {
		t.Fatalf("revoke: %d", status)
	}
	_, doc = page(t, c, appPage+"/certificates")
	if doc.Find("[data-testid=revoke]").Length() != 0 || !strings.Contains(doc.Find("[data-testid=certificate-row]").Text(), "Revoked") {
		t.Fatalf("not shown revoked: %s", doc.Find("[data-testid=certificate-row]").Text())
	}
}

// TestPKIConsoleIssueFromAnUploadedCSR issues from a CSR file chosen in
// the form (the file part wins over the text field), DER or PEM; a
// refused DER file is said beside the CSR and leaves the field empty.
func TestPKIConsoleIssueFromAnUploadedCSR(t *testing.T) {
	p := startPKI(t, true, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, p.env.URL, "admin@example.com").Body.Close()
	appPage := p.env.URL + "/organisations/" + p.oid + "/softwarestatements/" + p.aid
	upload := func(typ, text string, file []byte) (int, *http.Response) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		mw.WriteField("Type", typ)
		mw.WriteField("CSR", text)
		fw, _ := mw.CreateFormFile("file", "app.csr")
		fw.Write(file)
		mw.Close()
		req, _ := http.NewRequest("POST", appPage+"/certificates", &buf)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, resp
	}
	// A DER file for encryption with an EC key: refused beside the CSR.
	ecDER := mustCSR(t, mustKey(t, "p256"), pkix.Name{})
	status, resp := upload("encryption", "", ecDER)
	doc := docOf(t, resp)
	if status != 422 || !strings.Contains(doc.Find("[data-testid=error-CSR]").Text(), "RSA") || strings.TrimSpace(doc.Find("#f-CSR").Text()) != "" {
		t.Fatalf("refused upload: %d %q, field %q", status, doc.Find("[data-testid=error-CSR]").Text(), doc.Find("#f-CSR").Text())
	}
	// The DER file issues, though the text field holds junk: the file wins.
	status, resp = upload("signing", "junk", ecDER)
	doc = docOf(t, resp)
	if status != 200 || doc.Find("[data-testid=certificate-row]").Length() != 1 {
		t.Fatalf("DER upload: %d, %d rows %q", status, doc.Find("[data-testid=certificate-row]").Length(), doc.Find("[data-testid=error-CSR]").Text())
	}
	// A PEM file with an RSA key for encryption.
	status, resp = upload("encryption", "", []byte(csrPEM(mustCSR(t, mustKey(t, "rsa2048"), pkix.Name{}))))
	doc = docOf(t, resp)
	if status != 200 || doc.Find("[data-testid=certificate-row]").Length() != 2 {
		t.Fatalf("PEM upload: %d, %d rows", status, doc.Find("[data-testid=certificate-row]").Length())
	}
	list := p.a.must(200, "GET", p.appCerts(), "")["list"].([]any)
	types := map[string]bool{}
	for _, e := range list {
		types[e.(map[string]any)["OrganisationCertificateType"].(string)] = true
	}
	if len(list) != 2 || !types["signing"] || !types["encryption"] {
		t.Fatalf("issued %v", list)
	}
}

// TestPKISSAKeystoresOverTheApplicationsJwksUri: with the CA on the SSA
// names the application's keystores here even when the application has
// its own JwksUri; with it off, the JwksUri stays.
func TestPKISSAKeystoresOverTheApplicationsJwksUri(t *testing.T) {
	for _, on := range []bool{true, false} {
		p := startPKI(t, on, nil)
		p.a.must(200, "PUT", "/organisations/"+p.oid+"/softwarestatements/"+p.aid,
			`{"ClientName":"Acme Wallet","RedirectUri":["https://acme.example/cb"],"JwksUri":"https://acme.example/jwks","Status":"Active"}`)
		resp, tok := getRaw(t, p.a, "/organisations/"+p.oid+"/softwarestatements/"+p.aid+"/assertion")
		if resp.StatusCode != 200 {
			t.Fatalf("SSA: %d %s", resp.StatusCode, tok)
		}
		_, claims := jwtParts(t, tok)
		want := "https://acme.example/jwks"
		if on {
			want = p.env.URL + "/keystore/" + p.oid + "/" + p.aid + "/application.jwks"
		}
		if claims["software_jwks_uri"] != want || (claims["software_jwks_transport_uri"] != nil) != on {
			t.Errorf("CA on %v: software_jwks_uri %v (want %s), transport %v", on, claims["software_jwks_uri"], want, claims["software_jwks_transport_uri"])
		}
	}
}
