package web_test

import (
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestUnchangedPutComparesNumbersExactly: a PUT is "unchanged" only when
// what it sends is what is stored (docs/design.md §4). A policy value that
// differs from the stored one beyond float64's precision is a change: it
// is saved and audited, not answered 200 and dropped.
func TestUnchangedPutComparesNumbersExactly(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	setupDomains(t, a)
	body := func(n string) string {
		return `{"AuthorisationDomain":"Payments","Role":"PISP","EntityType":"openid_relying_party","Policy":{"default_max_age":{"value":` + n + `}}}`
	}
	path := "/references/role-metadata-policies/" + a.must(201, "POST", "/references/role-metadata-policies", body("9007199254740993"))["PolicyId"].(string)
	n := auditTotal(a)
	a.must(200, "PUT", path, body("9007199254740992"))
	if _, got := send(t, "GET", env.URL+"/api"+path, "Authorization", "Bearer "+a.token); !strings.Contains(got, `"value":9007199254740992}`) {
		t.Errorf("the new value was dropped: %s", got)
	}
	if auditTotal(a) != n+1 {
		t.Errorf("the change wrote %v audit records, want 1", auditTotal(a)-n)
	}
	// The same number again is unchanged.
	n = auditTotal(a)
	a.must(200, "PUT", path, body("9007199254740992"))
	if auditTotal(a) != n {
		t.Errorf("the same policy again wrote an audit record")
	}
}
