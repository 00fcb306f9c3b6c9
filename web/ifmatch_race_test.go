package web_test

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// raceIfMatch sends n copies of the same conditional PUT at once and
// returns how many answered each status.
func raceIfMatch(t *testing.T, n int, url, token, etag, body string) map[int]int {
	t.Helper()
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		counts = map[int]int{}
		start  = make(chan struct{})
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodPut, url, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("If-Match", etag)
			<-start
			status := -1
			if resp, err := http.DefaultClient.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				status = resp.StatusCode
			}
			mu.Lock()
			counts[status]++
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	return counts
}

// TestIfMatchRaceHasOneWinner: many writers with the same If-Match on the
// same resource at the same time; exactly one is applied (200) and every
// other one is refused as stale (412), for administrators and for a
// directory resource alike.
func TestIfMatchRaceHasOneWinner(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	a.must(201, "POST", "/users/super", `{"Email":"ops@example.com","Status":"Active"}`)
	a.must(201, "POST", "/users/data-administrators", `{"Email":"da@example.com"}`)
	o := a.must(201, "POST", "/organisations", org("Race Bank"))
	orgID := o["OrganisationId"].(string)

	cases := []struct{ name, path, body string }{
		{"super user", "/users/super/ops@example.com", `{"Status":"Inactive"}`},
		{"data administrator", "/users/data-administrators/da@example.com", `{"Status":"Inactive"}`},
		{"organisation", "/organisations/" + orgID, strings.TrimSuffix(strings.Replace(org("Race Bank"), "Race Bank", "Race Bank plc", 1), "}") + `,"Status":"Pending"}`},
	}
	const writers = 16
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, _ := a.do("GET", c.path, "")
			etag := resp.Header.Get("ETag")
			if resp.StatusCode != 200 || etag == "" {
				t.Fatalf("GET %s: %d, ETag %q", c.path, resp.StatusCode, etag)
			}
			counts := raceIfMatch(t, writers, a.base+"/api"+c.path, a.token, etag, c.body)
			if counts[200] != 1 || counts[412] != writers-1 {
				t.Fatalf("%d writers with one If-Match: %v, want one 200 and %d 412", writers, counts, writers-1)
			}
		})
	}
}

// TestIfMatchGuardsDeleteAndRevoke: the other writes a client can make
// conditional — deleting a reference item, revoking a certificate — honour
// a stale If-Match with 412 and change nothing, and go ahead on the
// current ETag.
func TestIfMatchGuardsDeleteAndRevoke(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	r, _ := a.do("POST", "/references/contact-types", `{"Name":"Legal","Description":"Legal contact"}`)
	old := r.Header.Get("ETag")
	a.must(200, "PUT", "/references/contact-types/Legal", `{"Name":"Legal","Description":"Legal team","Status":"Active"}`)
	if r, _ := a.do("DELETE", "/references/contact-types/Legal", "", "If-Match", old); r.StatusCode != 412 {
		t.Errorf("delete with a stale If-Match: %d", r.StatusCode)
	}
	r, _ = a.do("GET", "/references/contact-types/Legal", "")
	if r.StatusCode != 200 {
		t.Fatalf("a refused delete removed the item: %d", r.StatusCode)
	}
	if r, _ := a.do("DELETE", "/references/contact-types/Legal", "", "If-Match", r.Header.Get("ETag")); r.StatusCode != 204 {
		t.Errorf("delete with the current ETag: %d", r.StatusCode)
	}

	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	base := "/organisations/" + oid + "/certificates/"
	r, c := postPEM(t, a, base+"qseal", webtest.ValidCert(t, "rsa2048", "rsa.acme.example"))
	if r.StatusCode != 201 {
		t.Fatalf("upload: %d %v", r.StatusCode, c)
	}
	kid := c["kid"].(string)
	if r, _ := a.do("PUT", base+"kid/"+kid, `{"RevokeReason":"keycompromise"}`, "If-Match", `"not-its-etag"`); r.StatusCode != 412 {
		t.Errorf("revoke with a stale If-Match: %d", r.StatusCode)
	}
	r, got := a.do("GET", base+"kid/"+kid, "")
	if got["Status"] != "Active" {
		t.Fatalf("a refused revocation revoked: %v", got["Status"])
	}
	if r, _ := a.do("PUT", base+"kid/"+kid, `{"RevokeReason":"keycompromise"}`, "If-Match", r.Header.Get("ETag")); r.StatusCode != 204 {
		t.Errorf("revoke with the current ETag: %d", r.StatusCode)
	}
}
