package web_test

import (
	"github.com/PuerkitoBio/goquery"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestNoConfirmationForWhatTheServerRefuses: a button whose action the
// server would refuse is disabled with the reason beside it, not a
// confirmation followed by a refusal (issue 40): retiring the only Active
// key of an enabled algorithm, deactivating the last Active Super User.
// Once the action would go through, the button asks as the others do.
func TestNoConfirmationForWhatTheServerRefuses(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	_, doc := page(t, c, env.URL+"/references/signing-keys")
	ps := doc.Find("[data-testid=key-row]").FilterFunction(func(_ int, s *goquery.Selection) bool { return strings.HasPrefix(s.Find("td").First().Text(), "PS256") })
	if ps.Length() != 1 || ps.Find("[data-testid=retire-refused][disabled]").Length() != 1 ||
		!strings.Contains(ps.Find("[data-testid=refused-reason]").Text(), "rotate PS256 first") || ps.Find("form").Length() != 0 {
		t.Fatalf("the only PS256 key's Retire: %s", ps.Text())
	}
	a.must(201, "POST", "/references/signing-keys", `{"alg":"PS256"}`)
	_, doc = page(t, c, env.URL+"/references/signing-keys")
	ps = doc.Find("[data-testid=key-row]").FilterFunction(func(_ int, s *goquery.Selection) bool { return strings.HasPrefix(s.Find("td").First().Text(), "PS256") })
	if n := ps.Find("[data-testid=retire-refused]").Length(); n != 0 {
		t.Fatalf("%d keys still refused with two PS256 keys", n)
	}
	if n := ps.Find("form button[data-confirm]").Length(); n != 2 {
		t.Fatalf("%d Retire buttons that ask", n)
	}

	_, doc = page(t, c, env.URL+"/references/super-users")
	su := doc.Find("[data-testid=super-user-row]")
	if su.Length() != 1 || su.Find("button[disabled]").Length() != 1 || su.Find("button[data-confirm]").Length() != 0 ||
		!strings.Contains(su.Find("[data-testid=refused-reason]").Text(), "only Active Super User") {
		t.Fatalf("the last Super User's Deactivate: %s", su.Text())
	}
	a.must(201, "POST", "/users/super", `{"Email":"ann@example.com","Status":"Active"}`)
	_, doc = page(t, c, env.URL+"/references/super-users")
	if n := doc.Find("[data-testid=super-user-row] button[data-confirm]").Length(); n != 2 {
		t.Fatalf("%d Deactivate buttons that ask with two Super Users", n)
	}
}
