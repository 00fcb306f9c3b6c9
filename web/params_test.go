package web_test

import (
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestPageOrSizeGivenTwiceIsRefused: page or size given twice is a 400
// naming it, as signingAlg twice is (docs/decisions.md): the list read the
// first and dropped the second, even when the second was out of range,
// where a proxy or a cache in front may read the last.
func TestPageOrSizeGivenTwiceIsRefused(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Twice"))["OrganisationId"].(string)
	for _, path := range []string{"/organisations", "/organisations/" + oid + "/contacts", "/organisations/" + oid + "/documents", "/audit"} {
		for _, q := range []string{"page=0&page=-1", "page=1&page=0", "size=20&size=0", "size=5&size=5"} {
			if r, m := a.do("GET", path+"?"+q, ""); r.StatusCode != 400 || fieldsOf(m)[q[:strings.Index(q, "=")]] == "" {
				t.Errorf("GET %s?%s: %d %v, want 400 naming the parameter", path, q, r.StatusCode, m)
			}
		}
		a.must(200, "GET", path+"?page=0&size=5", "")
	}
}

// TestOrganisationFiltersGivenTwiceAreRefused: a filter or the sort of
// the organisation list (and its CSV export) given twice is a 400 naming
// it: ?Status=Active&Status=Nope listed the Active ones, and
// ?Status=Nope&Status=Active was refused.
func TestOrganisationFiltersGivenTwiceAreRefused(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	a.must(201, "POST", "/organisations", org("Filtered"))
	for _, path := range []string{"/organisations", "/organisations/export.csv"} {
		for _, q := range []string{"Status=Active&Status=Nope", "Status=Pending&Status=Pending", "q=a&q=b", "Flag=x&Flag=y", "sort=OrganisationName,asc&sort=Nope,asc"} {
			r, m := a.do("GET", path+"?"+q, "")
			if r.StatusCode != 400 || fieldsOf(m)[q[:strings.Index(q, "=")]] == "" {
				t.Errorf("GET %s?%s: %d %v, want 400 naming the parameter", path, q, r.StatusCode, m)
			}
		}
		a.must(200, "GET", path+"?Status=Pending&q=Filt", "")
	}
}
