package main

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func runLoad(cfg string, args ...string) (string, string, error) {
	var out, errb bytes.Buffer
	err := run(context.Background(), append([]string{"load", "--config-dir", cfg}, args...), func(string) string { return "" }, nil, &out, &errb)
	return out.String(), errb.String(), err
}

// The load generator sends the reads with a DPoP-bound token (proofs made
// ahead) and reports every path; a failing path makes it exit 1.
func TestLoadGenerator(t *testing.T) {
	base, _ := startProgram(t)
	cfg := filepath.Join(t.TempDir(), "cfg")
	cliLogin(t, base, cfg, "admin@example.com")
	if _, _, err := cliAPI(t, cfg, "POST", "/organisations", "--data", `{"OrganisationName":"Load Org","LegalEntityName":"Load Org Ltd","RegistrationNumber":"L-1","CountryOfRegistration":"GB"}`); err != nil {
		t.Fatal(err)
	}

	out, stderr, err := runLoad(cfg, "--requests", "60", "--warmup", "5", "--concurrency", "3", "/users/super", "/organisations?page={rand:3}&size=5")
	if err != nil {
		t.Fatalf("load: %v\n%s\n%s", err, out, stderr)
	}
	if !strings.Contains(out, "DPoP token of admin@example.com") {
		t.Errorf("token kind not reported: %s", out)
	}
	// 60 requests in turn over two paths: 30 each, none failed.
	for _, p := range []string{"/users/super", `/organisations\?page=\{rand:3\}&size=5`, `\(all\)`} {
		want := 30
		if p == `\(all\)` {
			want = 60
		}
		re := regexp.MustCompile(`(?m)^\s*(\d+)\s+0\s+(\d+ µs|[\d.]+ ms) .*` + p)
		m := re.FindStringSubmatch(out)
		if m == nil || m[1] != strconv.Itoa(want) {
			t.Errorf("line for %s (want %d requests, 0 failed) in:\n%s", p, want, out)
		}
	}
	if !regexp.MustCompile(`60 requests in \S+: \d+ requests/s`).MatchString(out) {
		t.Errorf("no throughput line:\n%s", out)
	}

	// A path that answers 404 fails the run and says why.
	out, _, err = runLoad(cfg, "--requests", "4", "--warmup", "0", "/organisations/no-such-org")
	if exitCode(err) != 1 || !strings.Contains(out, "failed: 4 × HTTP 404 from /organisations/no-such-org") {
		t.Fatalf("404 run: %v\n%s", err, out)
	}
	// Bad usage is exit 2 and sends nothing.
	for _, args := range [][]string{{}, {"--concurrency", "0", "/users/super"}, {"/organisations?page={rand:0}"}} {
		if _, _, err := runLoad(cfg, args...); exitCode(err) != 2 {
			t.Errorf("load %v: %v, want usage error", args, err)
		}
	}
}

// login --no-dpop keeps a plain Bearer token; load and api use it as Bearer.
func TestLoginNoDPoPBearer(t *testing.T) {
	base, _ := startProgram(t)
	cfg := filepath.Join(t.TempDir(), "cfg")
	out := cliLogin(t, base, cfg, "admin@example.com", "--no-dpop")
	if !strings.Contains(out, "as admin@example.com (Bearer token)") {
		t.Fatalf("login output: %s", out)
	}
	if stdout, _, err := cliAPI(t, cfg, "GET", "/users/super"); err != nil || !strings.Contains(stdout, "admin@example.com") {
		t.Fatalf("api with Bearer: %v %s", err, stdout)
	}
	out, _, err := runLoad(cfg, "--requests", "10", "--warmup", "0", "/users/super")
	if err != nil || !strings.Contains(out, "Bearer token of admin@example.com") {
		t.Fatalf("load with Bearer: %v\n%s", err, out)
	}
}
