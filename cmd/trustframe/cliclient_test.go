package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
)

// An application fetches its own SSA with `trustframe api --client-id
// --key-file` (docs/design.md §20): a token of the directory's token
// endpoint, DPoP-bound by default, Bearer with --no-dpop.
func TestCLIApplicationFetchesItsSSA(t *testing.T) {
	base, _ := startProgram(t)
	admin := filepath.Join(t.TempDir(), "admin")
	cliLogin(t, base, admin, "admin@example.com")
	mustJSON := func(args ...string) map[string]any {
		t.Helper()
		out, errOut, err := cliAPI(t, admin, args...)
		if err != nil {
			t.Fatalf("%v: %v %s", args, err, errOut)
		}
		var m map[string]any
		json.Unmarshal([]byte(out), &m)
		return m
	}
	orgID := mustJSON("POST", "/organisations", "--data", `{"OrganisationName":"Acme","RegistrationNumber":"R1","CountryOfRegistration":"GB","Status":"Active"}`)["OrganisationId"].(string)
	appID := mustJSON("POST", "/organisations/"+orgID+"/softwarestatements", "--data", `{"ClientName":"Payments"}`)["SoftwareStatementId"].(string)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	keyFile := filepath.Join(t.TempDir(), "app-key.pem")
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600)
	jwk, _ := json.Marshal(jose.JSONWebKey{Key: key.Public()})
	mustJSON("POST", "/organisations/"+orgID+"/key-material", "--data", `{"PublicJwk":`+string(jwk)+`,"Use":"sig","SoftwareStatementId":"`+appID+`"}`)

	cfg := filepath.Join(t.TempDir(), "app")
	asApp := func(extra []string, args ...string) (string, string, error) {
		return cliAPI(t, cfg, append(append([]string{"--server", base, "--client-id", appID, "--key-file", keyFile}, extra...), args...)...)
	}
	ssaPath := "/organisations/" + orgID + "/softwarestatements/" + appID + "/assertion"
	for _, extra := range [][]string{nil, {"--no-dpop"}} {
		out, errOut, err := asApp(extra, "GET", ssaPath)
		if err != nil || strings.Count(strings.TrimSpace(out), ".") != 2 {
			t.Fatalf("the application's SSA %v: %v %s %s", extra, err, out, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(cfg, "credentials.json")); !os.IsNotExist(err) {
		t.Fatalf("an application's token was kept on disk: %v", err)
	}
	// Anything but its own is refused.
	if _, errOut, err := asApp(nil, "GET", "/organisations"); exitCode(err) != 1 || !strings.Contains(errOut, `"status": 403`) {
		t.Fatalf("the organisation list as the application: %v %s", err, errOut)
	}
	// Without its key the command says what is missing.
	if _, _, err := cliAPI(t, cfg, "--server", base, "--client-id", appID, "GET", ssaPath); err == nil || !strings.Contains(err.Error(), "--key-file") {
		t.Fatalf("without --key-file: %v", err)
	}
}
