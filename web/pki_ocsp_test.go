package web_test

// The OCSP responder (docs/design.md §18) given what no client should
// send: every odd request gets an OCSP response, never a 500.

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/sha256"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/crypto/ocsp"
)

// TestPKIOCSPOddRequests: odd OCSP requests all get an OCSP response.
func TestPKIOCSPOddRequests(t *testing.T) {
	p := startPKI(t, true, nil)
	key := mustKey(t, "p256").(*ecdsa.PrivateKey)
	issued := p.a.must(201, "POST", p.appCerts()+"/signing", mustMarshal(map[string]string{"CSR": csrPEM(mustCSR(t, key, pkix.Name{}))}))
	cert := parseLeaf(t, issued["PEM"].(string))
	good, err := ocsp.CreateRequest(cert, p.ca.Cert, &ocsp.RequestOptions{Hash: crypto.SHA256})
	if err != nil {
		t.Fatal(err)
	}
	// Two certificates in one request; an unsupported hash (MD5's OID).
	mk := func(oid asn1.ObjectIdentifier, serials ...*big.Int) []byte {
		return ocspRequestDER(t, oid, make([]byte, 32), make([]byte, 32), serials...)
	}
	for name, body := range map[string][]byte{
		"truncated":         good[:len(good)/2],
		"trailing bytes":    append(append([]byte{}, good...), 0, 0),
		"two certificates":  mk(sha256OID, big.NewInt(1), big.NewInt(2)),
		"no certificate":    mk(sha256OID),
		"MD5":               mk(asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 5}, big.NewInt(1)),
		"unknown hash OID":  mk(asn1.ObjectIdentifier{1, 2, 3, 4}, big.NewInt(1)),
		"serial zero":       mk(sha256OID, big.NewInt(0)),
		"serial negative":   mk(sha256OID, big.NewInt(-5)),
		"deep nesting":      bytes.Repeat([]byte{0x30, 0x80}, 4000),
		"indefinite length": {0x30, 0x80, 0x00, 0x00},
	} {
		resp, err := http.Post(p.env.URL+"/pki/ocsp", "application/ocsp-request", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/ocsp-response" {
			t.Errorf("%s: %d %s", name, resp.StatusCode, resp.Header.Get("Content-Type"))
			continue
		}
		if _, err := ocsp.ParseResponse(b, nil); err != nil {
			var re ocsp.ResponseError
			if !asResponseError(err, &re) {
				t.Errorf("%s: not an OCSP response: %v", name, err)
			}
		}
	}
	// The same by GET, and a GET path over the limit.
	resp, err := http.Get(p.env.URL + "/pki/ocsp/" + url.PathEscape(base64.StdEncoding.EncodeToString(good[:len(good)/2])))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET truncated: %d", resp.StatusCode)
	}
	resp, err = http.Get(p.env.URL + "/pki/ocsp/" + strings.Repeat("A", 20<<10))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 && resp.StatusCode != 414 && resp.StatusCode != 431 {
		t.Errorf("GET over the limit: %d", resp.StatusCode)
	}
	for _, path := range []string{"/pki/crl", "/pki/ca.pem", "/pki/ca.crt"} {
		for _, m := range []string{"GET", "HEAD"} {
			resp, _ := send(t, m, p.env.URL+path+"?x=1", "Range", "bytes=5-2", "If-None-Match", "*")
			if resp.StatusCode >= 500 {
				t.Errorf("%s %s: %d", m, path, resp.StatusCode)
			}
		}
	}
}

func asResponseError(err error, re *ocsp.ResponseError) bool {
	e, ok := err.(ocsp.ResponseError)
	if ok {
		*re = e
	}
	return ok
}

// TestPKIOCSPLongSerialNotKept: an OCSP request about a serial longer
// than RFC 5280 allows (20 octets; the CA's are 17 at most) is a
// malformedRequest, not a signed answer kept in the responder's memory:
// else 20,000 requests of 12 KiB serials hold about a gigabyte of answers.
func TestPKIOCSPLongSerialNotKept(t *testing.T) {
	p := startPKI(t, true, nil)
	issuerNameHash := sha256.Sum256(p.ca.Cert.RawSubject)
	var spki struct {
		Algorithm pkix.AlgorithmIdentifier
		PublicKey asn1.BitString
	}
	if _, err := asn1.Unmarshal(p.ca.Cert.RawSubjectPublicKeyInfo, &spki); err != nil {
		t.Fatal(err)
	}
	issuerKeyHash := sha256.Sum256(spki.PublicKey.RightAlign())
	for _, octets := range []int{21, 12 << 10} {
		serial := new(big.Int).SetBytes(bytes.Repeat([]byte{0x7f}, octets))
		body := ocspRequestDER(t, sha256OID, issuerNameHash[:], issuerKeyHash[:], serial)
		resp, err := http.Post(p.env.URL+"/pki/ocsp", "application/ocsp-request", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !bytes.Equal(b, ocsp.MalformedRequestErrorResponse) {
			t.Errorf("a serial of %d octets: %d, %d bytes answered, want malformedRequest", octets, resp.StatusCode, len(b))
		}
	}
}

// sha256OID names SHA-256 in an OCSP request's CertID.
var sha256OID = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 1}

// ocspRequestDER is an OCSP request (RFC 6960 §4.1.1) about serials, its
// CertIDs hashed with oid, built field by field so that a test can send
// what ocsp.CreateRequest would not (several certificates, odd hashes,
// serials of any length).
func ocspRequestDER(t testing.TB, oid asn1.ObjectIdentifier, nameHash, keyHash []byte, serials ...*big.Int) []byte {
	t.Helper()
	type certID struct {
		HashAlgorithm pkix.AlgorithmIdentifier
		NameHash      []byte
		IssuerKeyHash []byte
		SerialNumber  *big.Int
	}
	type request struct{ Cert certID }
	type tbs struct{ RequestList []request }
	var r struct{ TBSRequest tbs }
	for _, s := range serials {
		r.TBSRequest.RequestList = append(r.TBSRequest.RequestList, request{certID{pkix.AlgorithmIdentifier{Algorithm: oid, Parameters: asn1.NullRawValue}, nameHash, keyHash, s}})
	}
	b, err := asn1.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
