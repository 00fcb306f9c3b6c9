package web_test

// CSRs the directory's CA must refuse cheaply or take only the key of
// (docs/design.md §18): 4xx, nothing issued.

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"math/big"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hugeRSACSR is a CSR (DER) whose RSA key has bits bits and exponent e,
// and whose signature is garbage of the modulus' length: checking it costs
// the verifier a modular exponentiation of that size.
func hugeRSACSR(t testing.TB, bits int, e int) []byte {
	t.Helper()
	n := new(big.Int).SetBytes(bytes.Repeat([]byte{0xff}, bits/8)) // odd, bits long
	pub := &rsa.PublicKey{N: n, E: e}
	spki, err := asn1.Marshal(struct {
		Algorithm pkix.AlgorithmIdentifier
		PublicKey asn1.BitString
	}{pkix.AlgorithmIdentifier{Algorithm: asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 1}, Parameters: asn1.NullRawValue},
		asn1.BitString{Bytes: mustASN1(t, struct {
			N *big.Int
			E int
		}{pub.N, pub.E}), BitLength: 0}})
	if err != nil {
		t.Fatal(err)
	}
	// Fix the bit string's length.
	var tmp struct {
		Algorithm pkix.AlgorithmIdentifier
		PublicKey asn1.BitString
	}
	asn1.Unmarshal(spki, &tmp)
	tmp.PublicKey.BitLength = len(tmp.PublicKey.Bytes) * 8
	spki, _ = asn1.Marshal(tmp)
	tbs, err := asn1.Marshal(struct {
		Version    int
		Subject    asn1.RawValue
		PublicKey  asn1.RawValue
		Attributes asn1.RawValue `asn1:"tag:0"`
	}{0, asn1.RawValue{FullBytes: mustASN1(t, pkix.Name{}.ToRDNSequence())}, asn1.RawValue{FullBytes: spki}, asn1.RawValue{Class: 2, Tag: 0, IsCompound: true}})
	if err != nil {
		t.Fatal(err)
	}
	sig := bytes.Repeat([]byte{0x01}, bits/8)
	der, err := asn1.Marshal(struct {
		TBS       asn1.RawValue
		Algorithm pkix.AlgorithmIdentifier
		Signature asn1.BitString
	}{asn1.RawValue{FullBytes: tbs}, pkix.AlgorithmIdentifier{Algorithm: asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 11}, Parameters: asn1.NullRawValue},
		asn1.BitString{Bytes: sig, BitLength: len(sig) * 8}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x509.ParseCertificateRequest(der); err != nil {
		t.Fatalf("the crafted CSR does not parse: %v", err)
	}
	return der
}

func mustASN1(t testing.TB, v any) []byte {
	t.Helper()
	b, err := asn1.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPKICSRHugeRSAKeyRefusedCheaply: a CSR whose RSA key is enormous is
// refused for its size before its signature is checked (the check of a
// garbage signature under a 262,144-bit modulus and an exponent of
// 2³¹−1 cost 3 s of CPU, and more with a larger one), and nothing is
// issued. The 422 naming the bound is the proof: a failed signature
// check is worded otherwise.
func TestPKICSRHugeRSAKeyRefusedCheaply(t *testing.T) {
	p := startPKI(t, true, nil)
	for _, bits := range []int{16384, 1 << 18} {
		der := hugeRSACSR(t, bits, 1<<31-1)
		resp, m, _ := p.issue(t, p.appCerts()+"/signing", "application/pkcs10", der, "")
		if resp.StatusCode != 422 || !strings.Contains(fieldsOf(m)["CSR"], "8192") {
			t.Errorf("an RSA key of %d bits: %d %v, want 422 naming the 8192-bit bound", bits, resp.StatusCode, m)
		}
	}
	if l := p.a.must(200, "GET", p.appCerts(), "")["list"].([]any); len(l) != 0 {
		t.Fatalf("%d certificates issued", len(l))
	}
}

// TestPKIOddCSRs: odd CSRs are refused with 422 and issue nothing; a CSR
// asking for extensions (CA, key usages, names) gets none of them.
func TestPKIOddCSRs(t *testing.T) {
	p := startPKI(t, true, nil)
	good := mustCSR(t, mustKey(t, "p256"), pkix.Name{})
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	manyAttrs := func() []byte {
		var exts []pkix.Extension
		for i := 0; i < 5000; i++ {
			exts = append(exts, pkix.Extension{Id: asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 99999, i + 1}, Value: []byte{0x05, 0x00}})
		}
		der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{ExtraExtensions: exts}, mustKey(t, "p256"))
		if err != nil {
			t.Fatal(err)
		}
		return der
	}()
	refusedCSRs := []struct {
		name, ct string
		body     []byte
	}{
		{"garbage DER", "application/pkcs10", []byte{0x30, 0x82, 0xff, 0xff, 0x01}},
		{"random DER", "application/pkcs10", bytes.Repeat([]byte{0x30, 0x80}, 3000)},
		{"garbage PEM", "application/x-pem-file", []byte("-----BEGIN CERTIFICATE REQUEST-----\n!!!!\n-----END CERTIFICATE REQUEST-----\n")},
		{"PEM of a private key", "application/x-pem-file", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1, 2, 3}})},
		{"Ed25519", "application/pkcs10", mustCSR(t, edKey, pkix.Name{})},
		{"RSA exponent 2^31+1", "application/pkcs10", hugeRSACSR(t, 2048, 1<<31+1)},
		{"RSA exponent even", "application/pkcs10", hugeRSACSR(t, 2048, 65536)},
		{"DER with trailing bytes", "application/pkcs10", append(append([]byte{}, good...), 0, 0)},
		{"an empty JSON CSR", "application/json", []byte(`{"CSR":""}`)},
		{"a JSON CSR of the wrong type", "application/json", []byte(`{"CSR":12}`)},
	}
	if dsa := opensslDSACSR(t); dsa != nil {
		refusedCSRs = append(refusedCSRs, struct {
			name, ct string
			body     []byte
		}{"DSA", "application/x-pem-file", dsa})
	}
	for _, c := range refusedCSRs {
		resp, _, raw := p.issue(t, p.appCerts()+"/signing", c.ct, c.body, "")
		if resp.StatusCode < 400 || resp.StatusCode >= 500 {
			t.Errorf("%s: %d %.300s", c.name, resp.StatusCode, raw)
		}
	}
	if l := p.a.must(200, "GET", p.appCerts(), "")["list"].([]any); len(l) != 0 {
		t.Fatalf("refusals issued %d certificates", len(l))
	}
	// Many extensions, and a CSR asking to be a CA with a name: issued
	// (the CA takes the key only), as a leaf with the directory's names.
	caAsk, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{DNSNames: []string{"bank.example"}, ExtraExtensions: []pkix.Extension{
		{Id: asn1.ObjectIdentifier{2, 5, 29, 19}, Critical: true, Value: mustASN1(t, struct {
			IsCA bool `asn1:"optional"`
		}{true})},
		{Id: asn1.ObjectIdentifier{2, 5, 29, 15}, Critical: true, Value: []byte{0x03, 0x02, 0x01, 0x06}},
	}}, mustKey(t, "p256"))
	if err != nil {
		t.Fatal(err)
	}
	for name, der := range map[string][]byte{"5000 extensions": manyAttrs, "asks to be a CA": caAsk} {
		resp, m, raw := p.issue(t, p.appCerts()+"/signing", "application/pkcs10", der, "")
		if resp.StatusCode != 201 {
			t.Errorf("%s: %d %.300s", name, resp.StatusCode, raw)
			continue
		}
		leaf := parseLeaf(t, m["PEM"].(string))
		if leaf.IsCA || leaf.KeyUsage&x509.KeyUsageCertSign != 0 || len(leaf.DNSNames) != 0 || len(leaf.Extensions) > 10 {
			t.Errorf("%s: the leaf took the CSR's extensions: CA %v usage %v names %v, %d extensions", name, leaf.IsCA, leaf.KeyUsage, leaf.DNSNames, len(leaf.Extensions))
		}
	}
}

// TestPKICSRPEMOfSeveralBlocksRefused: a PEM text holding more than one
// block is refused: the CA would sign the first and ignore the rest, and
// the person who pasted two requests (or a request and its key) cannot
// tell which was used.
func TestPKICSRPEMOfSeveralBlocksRefused(t *testing.T) {
	p := startPKI(t, true, nil)
	a := csrPEM(mustCSR(t, mustKey(t, "p256"), pkix.Name{}))
	b := csrPEM(mustCSR(t, mustKey(t, "p256"), pkix.Name{}))
	for name, body := range map[string]string{
		"two CSRs":              a + b,
		"a CSR and a key block": a + string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: []byte{1, 2, 3}})),
		// pem.Decode skips a block it cannot read: the CSR after it must
		// not pass as the only one.
		"a broken block, then a CSR": "-----BEGIN JUNK-----\n!!!\n-----END JUNK-----\n" + a,
	} {
		resp, m, _ := p.issue(t, p.appCerts()+"/signing", "application/x-pem-file", []byte(body), "")
		if resp.StatusCode != 422 || !strings.Contains(fieldsOf(m)["CSR"], "one") {
			t.Errorf("%s: %d %v, want 422 asking for one block", name, resp.StatusCode, m)
		}
	}
	if l := p.a.must(200, "GET", p.appCerts(), "")["list"].([]any); len(l) != 0 {
		t.Fatalf("%d certificates issued", len(l))
	}
	// Text around one block (openssl's, a comment line) is no second block.
	resp, _, raw := p.issue(t, p.appCerts()+"/signing", "application/x-pem-file", []byte("Certificate Request:\n    Data: ...\n"+a+"\n"), "")
	if resp.StatusCode != 201 {
		t.Fatalf("one block with text around it: %d %.300s", resp.StatusCode, raw)
	}
}

// opensslDSACSR is a CSR of a DSA key made by openssl, nil without it.
func opensslDSACSR(t *testing.T) []byte {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		return nil
	}
	dir := t.TempDir()
	params, key := filepath.Join(dir, "p.pem"), filepath.Join(dir, "k.pem")
	for _, args := range [][]string{
		{"genpkey", "-genparam", "-algorithm", "DSA", "-pkeyopt", "dsa_paramgen_bits:1024", "-out", params},
		{"genpkey", "-paramfile", params, "-out", key},
	} {
		if out, err := exec.Command("openssl", args...).CombinedOutput(); err != nil {
			t.Logf("openssl %v: %v %s", args, err, out)
			return nil
		}
	}
	out, err := exec.Command("openssl", "req", "-new", "-key", key, "-subj", "/", "-sha256").Output()
	if err != nil {
		t.Logf("openssl req: %v", err)
		return nil
	}
	return out
}
