package main

import (
	"bytes"
	"context"
	"crypto/x509"
	"crypto/x509/pkix"
	"database/sql"
	"encoding/pem"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trustframe/trustframe/pki"
	"github.com/trustframe/trustframe/ssa/keyring"
	"github.com/trustframe/trustframe/web"
)

// serve --pki makes the CA, publishes it, and doctor checks it: the key
// opens with the KEK and matches the certificate, which is valid now.
func TestServePKIAndDoctor(t *testing.T) {
	base, dataDir := startProgram(t, "--pki", "--pki-name", "CN=Test Issuing CA,O=Test Directory,C=GB")
	resp, err := http.Get(base + "/pki/ca.pem")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	blk, _ := pem.Decode(b)
	if resp.StatusCode != 200 || blk == nil {
		t.Fatalf("ca.pem: %d", resp.StatusCode)
	}
	ca, err := x509.ParseCertificate(blk.Bytes)
	if err != nil || ca.Subject.String() != "CN=Test Issuing CA,O=Test Directory,C=GB" {
		t.Fatalf("%v %v", ca.Subject, err)
	}
	out, err := runDoctor("--data-dir", dataDir, "--pki")
	if err != nil || !strings.Contains(out, "ok    certificate authority") || !strings.Contains(out, "key opens with the KEK and matches") || !strings.Contains(out, "ok    CRL") {
		t.Fatalf("%v\n%s", err, out)
	}
	// Other flags than the stored CA's: doctor says they are ignored.
	if out, _ := runDoctor("--data-dir", dataDir, "--pki", "--pki-key-alg", "RS3072", "--pki-name", "CN=Other CA"); !strings.Contains(out, "warn  certificate authority flags") ||
		!strings.Contains(out, "--pki-key-alg RS3072 and --pki-name CN=Other CA only make a CA") {
		t.Fatalf("%s", out)
	}
	if out, _ := runDoctor("--data-dir", dataDir, "--pki", "--pki-name", "CN=Test Issuing CA,O=Test Directory,C=GB"); strings.Contains(out, "certificate authority flags") {
		t.Fatalf("the same flags: %s", out)
	}
	// Off now, still stored: doctor says so.
	if out, _ := runDoctor("--data-dir", dataDir); !strings.Contains(out, "off (no --pki)") {
		t.Fatalf("%s", out)
	}

	// The stored CA replaced by broken ones, each failed by name.
	kek, err := keyring.LoadKEK(filepath.Join(dataDir, "kek.key"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dataDir, "trustframe.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var certDER, sealed []byte
	if err := db.QueryRow(`SELECT cert_der, sealed_key FROM pki_ca`).Scan(&certDER, &sealed); err != nil {
		t.Fatal(err)
	}
	expiredCert, expiredKey, _ := pki.NewCA(pkix.Name{CommonName: "Old CA"}, pki.AlgES384, time.Now().Add(-3*365*24*time.Hour), 365*24*time.Hour)
	otherCert, _, _ := pki.NewCA(pkix.Name{CommonName: "Other CA"}, pki.AlgES384, time.Now(), time.Hour*24*3650)
	for name, c := range map[string]struct {
		cert, key []byte
		want      string
	}{
		"expired":                {expiredCert, kek.Seal(expiredKey, web.CAKeyAAD), "is valid from"},
		"another certificate":    {otherCert, sealed, "not the certificate's"},
		"sealed for another use": {certDER, kek.Seal([]byte("x"), []byte("another use")), "does not open with the KEK"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := db.Exec(`UPDATE pki_ca SET cert_der = ?, sealed_key = ?`, c.cert, c.key); err != nil {
				t.Fatal(err)
			}
			out, err := runDoctor("--data-dir", dataDir, "--pki")
			if exitCode(err) != 1 || !strings.Contains(out, "FAIL  certificate authority") || !strings.Contains(out, c.want) {
				t.Fatalf("%v\n%s", err, out)
			}
		})
	}
}

func TestServeRefusesBadPKIFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--pki-key-alg", "ES256"}, "--pki-key-alg must be ES384 or RS3072"},
		{[]string{"--pki-name", "CN=x,E=a@b"}, `--pki-name: at character 6: the attribute type "E" is not taken`},
		{[]string{"--pki-leaf-lifetime", "0s"}, "--pki-leaf-lifetime must be more than 0"},
	} {
		var stderr bytes.Buffer
		args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--pki"}, c.args...)
		err := run(context.Background(), args, func(string) string { return "" }, strings.NewReader(""), io.Discard, &stderr)
		if exitCode(err) != 2 || !strings.Contains(err.Error()+stderr.String(), c.want) {
			t.Errorf("%v: %v %s", c.args, err, stderr.String())
		}
	}
}
