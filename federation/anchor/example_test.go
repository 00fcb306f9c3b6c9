package anchor

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestExampleConfig loads docs/anchor.example.yaml as an operator would use
// it: the file beside its key and JWKS files. The example must stay valid.
func TestExampleConfig(t *testing.T) {
	example, err := os.ReadFile(filepath.Join("..", "..", "docs", "anchor.example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, d := range []string{"keys", "subs"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	writeKey(t, dir, filepath.Join("keys", "anchor-1.pem"))
	sub := writeKey(t, dir, "fed-a.pem")
	if err := os.WriteFile(filepath.Join(dir, "subs", "fed-a.jwks.json"), []byte(publicJWKS(sub, "fed-a-1")), 0o600); err != nil {
		t.Fatal(err)
	}
	path := writeConfig(t, dir, string(example))

	a, err := Load(path)
	if err != nil {
		t.Fatalf("the example does not load: %v", err)
	}
	if got, want := a.List(nil), []string{"https://fed-a.example.org", "https://fed-b.example.org", "https://wallets.example.net"}; !slices.Equal(got, want) {
		t.Errorf("List() = %v, want %v", got, want)
	}
	if got := a.List([]string{"openid_wallet_provider"}); !slices.Equal(got, []string{"https://wallets.example.net"}) {
		t.Errorf("List(openid_wallet_provider) = %v", got)
	}
	if a.lifetime != 24*time.Hour {
		t.Errorf("statement lifetime %v, want 24h", a.lifetime)
	}
	if _, err := a.EntityConfiguration(time.Now()); err != nil {
		t.Errorf("entity configuration: %v", err)
	}
}
