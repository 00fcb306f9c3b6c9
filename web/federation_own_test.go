package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/web"
	"github.com/trustframe/trustframe/web/webtest"
)

const ownConfigPage = "/references/federation"

// TestFederationOwnConfigurationPageShowsWhatIsServed: Reference Data >
// Federation entity configuration shows what /.well-known/openid-federation
// serves at the same instant (docs/design.md §13): the same iss, kid, exp,
// endpoints and keys, the signature verified with the published key, and the
// compact JWT itself.
func TestFederationOwnConfigurationPageShowsWhatIsServed(t *testing.T) {
	clock := &testClock{t: time.Now().Truncate(time.Second)}
	env := webtest.Start(t, func(c *web.Config) {
		c.Now = clock.Now
		c.FederationOrganizationName = "Example Trust Framework"
	})
	// A rotation first: two keys published, the newer one signs.
	newAPI(t, env, "admin@example.com").must(201, "POST", "/references/signing-keys/federation", "")
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	code, _, served := fedGet(t, env, "/.well-known/openid-federation")
	if code != 200 {
		t.Fatalf("entity configuration: %d %s", code, served)
	}
	claims := fedClaims(t, served, "entity-statement+jwt", nil)
	jws, _ := jose.ParseSignedCompact(served, []jose.SignatureAlgorithm{jose.ES256})
	kid := jws.Signatures[0].Header.KeyID

	resp, doc := page(t, c, env.URL+ownConfigPage)
	if resp.StatusCode != 200 {
		t.Fatalf("page: %d", resp.StatusCode)
	}
	field := func(id string) string {
		t.Helper()
		s := doc.Find("[data-testid=" + id + "]")
		if s.Length() != 1 {
			t.Fatalf("%s: %d elements", id, s.Length())
		}
		return strings.TrimSpace(s.Text())
	}
	wantURL := env.URL + "/.well-known/openid-federation"
	if href, _ := doc.Find("[data-testid=fed-own-url] a").Attr("href"); href != wantURL || field("fed-own-url-text") != wantURL {
		t.Errorf("url %q / %q, want %s", href, field("fed-own-url-text"), wantURL)
	}
	if got := field("fed-own-iss"); got != claims["iss"] {
		t.Errorf("iss %q, served %v", got, claims["iss"])
	}
	if got := field("fed-own-sub"); got != claims["sub"] {
		t.Errorf("sub %q, served %v", got, claims["sub"])
	}
	if got := field("fed-own-kid"); got != kid {
		t.Errorf("kid %q, served %s", got, kid)
	}
	if got := field("fed-own-alg"); got != string(jws.Signatures[0].Header.Algorithm) || field("fed-own-typ") != "entity-statement+jwt" {
		t.Errorf("alg %q typ %q", got, field("fed-own-typ"))
	}
	for name, claim := range map[string]string{"fed-own-exp": "exp", "fed-own-iat": "iat"} {
		dt, _ := doc.Find("[data-testid=" + name + "] time").Attr("datetime")
		at, err := time.Parse(time.RFC3339, dt)
		if err != nil || at.Unix() != int64(claims[claim].(float64)) {
			t.Errorf("%s datetime %q (%v), served %v", claim, dt, err, claims[claim])
		}
	}
	if got := field("fed-own-expires-in"); got != "expires in 1 day" {
		t.Errorf("expires in: %q", got)
	}
	// Every endpoint of metadata.federation_entity, as a link.
	fe := claims["metadata"].(map[string]any)["federation_entity"].(map[string]any)
	var want, got []string
	for k, v := range fe {
		if strings.HasSuffix(k, "_endpoint") {
			want = append(want, k+" "+v.(string))
		}
	}
	doc.Find("[data-testid=fed-own-endpoint]").Each(func(_ int, s *goquery.Selection) {
		href, _ := s.Find("a").Attr("href")
		got = append(got, s.AttrOr("data-claim", "")+" "+href)
	})
	sort.Strings(want)
	sort.Strings(got)
	if len(want) != 7 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("endpoints on the page:\n%s\nserved:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := field("fed-own-organization_name"); got != "Example Trust Framework" {
		t.Errorf("organization_name %q", got)
	}
	// The published keys, the signing one marked.
	var kids []string
	doc.Find("[data-testid=fed-own-key]").Each(func(_ int, s *goquery.Selection) {
		kids = append(kids, strings.TrimSpace(s.Find("[data-testid=fed-own-key-kid]").Text()))
		if s.Find("[data-testid=fed-own-key-signs]").Length() == 1 != (strings.TrimSpace(s.Find("[data-testid=fed-own-key-kid]").Text()) == kid) {
			t.Errorf("the signing mark is on the wrong key: %s", s.Text())
		}
	})
	keys := claims["jwks"].(map[string]any)["keys"].([]any)
	if len(kids) != 2 || len(keys) != 2 || !strings.Contains(strings.Join(kids, " "), kid) {
		t.Errorf("keys on the page %v, served %v", kids, keys)
	}
	if got := field("fed-own-verified"); !strings.Contains(got, "verified") || !strings.Contains(got, kid) {
		t.Errorf("verification: %q", got)
	}
	if doc.Find("[data-testid=fed-own-verify-error]").Length() != 0 {
		t.Errorf("a verification error is shown: %s", doc.Find("[data-testid=fed-own-verify-error]").Text())
	}
	// The compact JWT is the one served; the decoded JSON its claims.
	// (An ECDSA signature differs at each signing: the header and claims are
	// the same, and the page's copy verifies with the published key.)
	signingInput := func(tok string) string { return tok[:strings.LastIndex(tok, ".")] }
	if got := field("fed-own-jwt"); signingInput(got) != signingInput(served) {
		t.Errorf("JWT on the page differs from the served one:\n%s\n%s", got, served)
	} else {
		fedClaims(t, got, "entity-statement+jwt", nil)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(field("fed-own-json")), &raw); err != nil {
		t.Fatalf("decoded JSON: %v", err)
	}
	jsonEq(t, raw, string(fedJSON(claims)))
	// Reachable from Reference Data.
	_, ref := page(t, c, env.URL+"/references")
	if href, _ := ref.Find("[data-testid=ref-federation]").Attr("href"); href != ownConfigPage {
		t.Errorf("Reference Data links %q", href)
	}
}

// TestFederationOwnConfigurationNotSetUp: without a federation signing key
// the directory serves no entity configuration; the page says so and where
// to make a key, instead of an error.
func TestFederationOwnConfigurationNotSetUp(t *testing.T) {
	env := webtest.Start(t, nil)
	if _, err := env.DB.SQL().ExecContext(context.Background(), `UPDATE federation_keys SET status = 'Retired', retired_at = ?`, time.Now().Add(-48*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if code, _, body := fedGet(t, env, "/.well-known/openid-federation"); code == 200 {
		t.Fatalf("an entity configuration is served without a key: %s", body)
	}
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, doc := page(t, c, env.URL+ownConfigPage)
	if resp.StatusCode != 200 {
		t.Fatalf("page: %d", resp.StatusCode)
	}
	msg := doc.Find("[data-testid=fed-own-not-configured]")
	if !strings.Contains(msg.Text(), "no federation signing key") {
		t.Errorf("message: %q", msg.Text())
	}
	if href, _ := msg.Find("a").Attr("href"); href != "/references/signing-keys#federation-keys" {
		t.Errorf("link to configure: %q", href)
	}
	if doc.Find("[data-testid=fed-own-jwt]").Length() != 0 || doc.Find("[data-testid=fed-own-iss]").Length() != 0 {
		t.Error("a statement is shown although none is served")
	}
}

// TestFederationOwnConfigurationAccess: Super Users only; a Data
// Administrator is refused, a signed-out visitor is sent to sign in.
func TestFederationOwnConfigurationAccess(t *testing.T) {
	env := webtest.Start(t, nil)
	newAPI(t, env, "admin@example.com").must(201, "POST", "/users/data-administrators", `{"Email":"dana@example.com"}`)
	su, dana := webtest.Browser(), webtest.Browser()
	webtest.SignIn(t, su, env.URL, "admin@example.com").Body.Close()
	webtest.SignIn(t, dana, env.URL, "dana@example.com").Body.Close()
	if resp, _ := page(t, su, env.URL+ownConfigPage); resp.StatusCode != 200 {
		t.Errorf("Super User: %d", resp.StatusCode)
	}
	if resp, doc := page(t, dana, env.URL+ownConfigPage); resp.StatusCode != 403 || doc.Find("[data-testid=fed-own-jwt]").Length() != 0 {
		t.Errorf("Data Administrator: %d", resp.StatusCode)
	}
	out := webtest.Browser()
	out.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := out.Get(env.URL + ownConfigPage)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusFound || loc != "/login?return_to=%2Freferences%2Ffederation" {
		t.Errorf("signed out: %d %q", resp.StatusCode, loc)
	}
}
