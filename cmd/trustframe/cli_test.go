package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCLILoginAPILogout(t *testing.T) {
	base, _ := startProgram(t)
	cfg := filepath.Join(t.TempDir(), "cfg")
	out := cliLogin(t, base, cfg, "admin@example.com")
	if !strings.Contains(out, "as admin@example.com (DPoP token)") {
		t.Fatalf("login output: %s", out)
	}
	st, err := os.Stat(filepath.Join(cfg, "dpop-key.pem"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", st, err)
	}
	st, err = os.Stat(filepath.Join(cfg, "credentials.json"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("credentials file: %v %v", st, err)
	}

	stdout, _, err := cliAPI(t, cfg, "GET", "/users/super")
	if err != nil || !strings.Contains(stdout, `"Email": "admin@example.com"`) {
		t.Fatalf("GET: %v %s", err, stdout)
	}
	stdout, _, err = cliAPI(t, cfg, "POST", "/users/super", "--data", `{"Email":"ops@example.com","Status":"Active"}`)
	if err != nil || !strings.Contains(stdout, "ops@example.com") {
		t.Fatalf("POST: %v %s", err, stdout)
	}
	if _, _, err := cliAPI(t, cfg, "POST", "/users/super", "--data", "@-"); err != nil {
		t.Fatalf("POST from stdin: %v", err)
	}
	file := filepath.Join(t.TempDir(), "body.json")
	os.WriteFile(file, []byte(`{"Status":"Inactive"}`), 0o644)
	if stdout, _, err := cliAPI(t, cfg, "PUT", "/users/super/ops@example.com", "--data", "@"+file); err != nil || !strings.Contains(stdout, "Inactive") {
		t.Fatalf("PUT from file: %v %s", err, stdout)
	}
	_, stderr, err := cliAPI(t, cfg, "POST", "/users/super", "--data", `{"Email":"bad","Status":"Active"}`)
	if exitCode(err) != 1 || !strings.Contains(stderr, `"status": 422`) {
		t.Fatalf("bad input: %v %s", err, stderr)
	}

	// An expired token is refreshed with the same DPoP key.
	var c credentials
	b, _ := os.ReadFile(filepath.Join(cfg, "credentials.json"))
	json.Unmarshal(b, &c)
	old := c.AccessToken
	c.Expiry = time.Now().Add(-time.Minute)
	nb, _ := json.Marshal(c)
	os.WriteFile(filepath.Join(cfg, "credentials.json"), nb, 0o600)
	if _, _, err := cliAPI(t, cfg, "GET", "/users/super"); err != nil {
		t.Fatalf("after expiry: %v", err)
	}
	b, _ = os.ReadFile(filepath.Join(cfg, "credentials.json"))
	json.Unmarshal(b, &c)
	if c.AccessToken == old || c.TokenType != "DPoP" {
		t.Fatal("the token was not refreshed")
	}

	var lo bytes.Buffer
	if err := run(context.Background(), []string{"logout", "--config-dir", cfg}, func(string) string { return "" }, nil, &lo, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cfg, "credentials.json")); !os.IsNotExist(err) {
		t.Fatal("credentials kept after logout")
	}
	if _, _, err := cliAPI(t, cfg, "GET", "/users/super"); err == nil || !strings.Contains(err.Error(), "not signed in") {
		t.Fatalf("after logout: %v", err)
	}
}

// The CLI sends other media types (an organisation import as CSV), prints
// what is not JSON as it is (the CSV export), and follows every page of a
// paged list with --paginate.
func TestCLIImportExportAndPaginate(t *testing.T) {
	base, _ := startProgram(t)
	cfg := filepath.Join(t.TempDir(), "cfg")
	cliLogin(t, base, cfg, "admin@example.com")
	file := filepath.Join(t.TempDir(), "orgs.csv")
	var csv strings.Builder
	csv.WriteString("OrganisationName,RegistrationNumber,CountryOfRegistration\n")
	for i := 0; i < 5; i++ {
		fmt.Fprintf(&csv, "Bank %d,R-%d,GB\n", i, i)
	}
	os.WriteFile(file, []byte(csv.String()), 0o644)
	stdout, stderr, err := cliAPI(t, cfg, "POST", "/organisations/import", "--data", "@"+file, "--content-type", "text/csv")
	if err != nil || !strings.Contains(stdout, `"Created": 5`) {
		t.Fatalf("import: %v %s %s", err, stdout, stderr)
	}
	stdout, _, err = cliAPI(t, cfg, "GET", "/organisations/export.csv?sort=OrganisationName,asc")
	if err != nil || !strings.HasPrefix(stdout, "OrganisationId,OrganisationName,") || strings.Count(stdout, "\n") != 6 || !strings.Contains(stdout, ",Bank 4,") {
		t.Fatalf("export: %v %q", err, stdout)
	}
	stdout, _, err = cliAPI(t, cfg, "GET", "/organisations?size=2&sort=OrganisationName,desc", "--paginate")
	var all []map[string]any
	if err != nil || json.Unmarshal([]byte(stdout), &all) != nil || len(all) != 5 || all[0]["OrganisationName"] != "Bank 4" || all[4]["OrganisationName"] != "Bank 0" {
		t.Fatalf("paginate: %v %s", err, stdout)
	}
	// Paths are relative to /api; one copied with its /api prefix means the same.
	for _, p := range []string{"/api/organisations?size=1", "api/organisations?size=1"} {
		if stdout, stderr, err := cliAPI(t, cfg, "GET", p); err != nil || !strings.Contains(stdout, `"totalSize": 5`) {
			t.Fatalf("%s: %v %s %s", p, err, stdout, stderr)
		}
	}
	// A list that is not paged comes back as it is; --paginate is for GET.
	if stdout, _, err := cliAPI(t, cfg, "GET", "/users/super", "--paginate"); err != nil || !strings.Contains(stdout, "admin@example.com") {
		t.Fatalf("not paged: %v %s", err, stdout)
	}
	if _, _, err := cliAPI(t, cfg, "POST", "/organisations", "--paginate"); exitCode(err) != 2 {
		t.Fatalf("--paginate with POST: %v", err)
	}
	// A method the API does not answer (or the two swapped) is a usage
	// error naming the methods; it was sent as it was.
	for _, args := range [][]string{{"FROB", "/organisations"}, {"/organisations", "GET"}} {
		if _, _, err := cliAPI(t, cfg, args...); exitCode(err) != 2 || !strings.Contains(err.Error(), "METHOD is one of GET") || !strings.Contains(err.Error(), args[0]) {
			t.Fatalf("api %v: exit %d: %v", args, exitCode(err), err)
		}
	}
	if stdout, _, err := cliAPI(t, cfg, "get", "/organisations?size=1"); err != nil || !strings.Contains(stdout, `"totalSize": 5`) {
		t.Fatalf("a lower-case method: %v %s", err, stdout)
	}
}

// A busy server (503 with a short Retry-After) is asked once more after
// the wait it names.
func TestCLIRetriesABusyServer(t *testing.T) {
	var calls int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if calls == 1 {
			w.Header().Set("Retry-After", "1")
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"status":503,"errors":[{"code":"busy"}]}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`[{"Email":"admin@example.com"}]`))
	}))
	defer srv.Close()
	cfg := t.TempDir()
	b, _ := json.Marshal(credentials{Server: srv.URL, AccessToken: "t", TokenType: "Bearer", Expiry: time.Now().Add(time.Hour), NoDPoP: true})
	os.WriteFile(filepath.Join(cfg, "credentials.json"), b, 0o600)
	start := time.Now()
	stdout, stderr, err := cliAPI(t, cfg, "GET", "/users/super")
	if err != nil || calls != 2 || !strings.Contains(stdout, "admin@example.com") || time.Since(start) < time.Second {
		t.Fatalf("%v calls=%d %s %s", err, calls, stdout, stderr)
	}
}
