package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/web/webtest"
)

// Issue 36 (docs/design.md §19), through the API: a Data Administrator
// invites an administrator of an organisation (Invited, the mail names the
// organisation), the first sign-in makes them Active; they invite another
// of their organisation, deactivate and reactivate them, never themselves;
// a repeat invitation is 409, a bad e-mail 422 naming the field, an
// unknown organisation 404, DELETE 405; every status change is audited
// with the organisation.
func TestOrgAdminInviteSignInAndManage(t *testing.T) {
	env := webtest.Start(t, nil)
	ctx := context.Background()
	su := newAPI(t, env, "admin@example.com")
	acme := su.must(201, "POST", "/organisations", org("Acme Bank"))["OrganisationId"].(string)
	data := newAPIWithInvite(t, env, su, "dana@example.com")
	base := "/organisations/" + acme + "/administrators"

	resp, m := data.do("POST", base, `{"Email":"Olga@Example.com"}`)
	if resp.StatusCode != 201 || m["Status"] != "Invited" || m["Email"] != "olga@example.com" || m["OrganisationId"] != acme || m["InvitedBy"] != "dana@example.com" {
		t.Fatalf("invite: %d %v", resp.StatusCode, m)
	}
	if loc := resp.Header.Get("Location"); loc != "/api"+base+"/olga@example.com" {
		t.Errorf("Location %q", loc)
	}
	msgs, _ := env.DB.ListOutbox(ctx, 10)
	if len(msgs) == 0 || msgs[0].To != "olga@example.com" || !strings.Contains(msgs[0].Subject, "Acme Bank") ||
		!strings.Contains(msgs[0].Body, "Organisation Administrator of Acme Bank") || !strings.Contains(msgs[0].Body, "You may not:") {
		t.Fatalf("outbox: %+v", msgs)
	}
	data.must(409, "POST", base, `{"Email":"olga@example.com"}`)
	if _, m := data.do("POST", base, `{"Email":"olga"}`); fieldsOf(m)["Email"] == "" {
		t.Fatalf("bad e-mail: %v", m)
	}
	data.must(422, "POST", base, `{"Email":"olga"}`)
	data.must(404, "POST", "/organisations/00000000-0000-4000-8000-000000000000/administrators", `{"Email":"ivan@example.com"}`)
	data.must(404, "GET", "/organisations/00000000-0000-4000-8000-000000000000/administrators", "")
	data.must(404, "GET", base+"/nobody@example.com", "")
	if r, _ := data.do("DELETE", base+"/olga@example.com", ""); r.StatusCode != 405 || r.Header.Get("Allow") != "GET, PUT" {
		t.Fatalf("DELETE: %d %q", r.StatusCode, r.Header.Get("Allow"))
	}

	// The first sign-in makes Olga Active.
	webtest.SignIn(t, webtest.Browser(), env.URL, "olga@example.com").Body.Close()
	if a, _ := env.DB.GetOrganisationAdministrator(ctx, acme, "olga@example.com"); a.Status != "Active" || a.ActivatedAt == nil {
		t.Fatalf("after first sign-in: %+v", a)
	}

	// Olga invites Omar to her organisation and manages him; not herself.
	olga := newAPI(t, env, "olga@example.com")
	olga.must(201, "POST", base, `{"Email":"omar@example.com"}`)
	if list := olga.must(200, "GET", base, "")["list"].([]any); len(list) != 2 {
		t.Fatalf("list: %v", list)
	}
	r, m := olga.do("PUT", base+"/olga@example.com", `{"Status":"Inactive"}`)
	if r.StatusCode != 403 || !strings.Contains(toJSON(t, m), "your own status") {
		t.Fatalf("deactivating herself: %d %v", r.StatusCode, m)
	}
	if a, _ := env.DB.GetOrganisationAdministrator(ctx, acme, "olga@example.com"); a.Status != "Active" {
		t.Fatalf("changed: %+v", a)
	}
	got, _ := olga.do("GET", base+"/omar@example.com", "")
	etag := got.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	if r, _ := olga.do("PUT", base+"/omar@example.com", `{"Status":"Inactive"}`, "If-Match", `"stale"`); r.StatusCode != 412 {
		t.Fatalf("stale If-Match: %d", r.StatusCode)
	}
	if r, m := olga.do("PUT", base+"/omar@example.com", `{"Status":"Inactive"}`, "If-Match", etag); r.StatusCode != 200 || m["Status"] != "Inactive" {
		t.Fatalf("deactivate Omar: %d %v", r.StatusCode, m)
	}
	if _, m := olga.do("PUT", base+"/omar@example.com", `{"Status":"Invited"}`); fieldsOf(m)["Status"] == "" {
		t.Fatalf("Status Invited by hand: %v", m)
	}
	olga.must(200, "PUT", base+"/omar@example.com", `{"Status":"Active"}`)

	recs, _, _ := env.DB.ListAudit(ctx, store.AuditFilter{SubjectType: "OrganisationAdministrator", Action: "status"})
	if len(recs) != 2 {
		t.Fatalf("status audit: %+v", recs)
	}
	for _, rec := range recs {
		if rec.OrganisationID != acme || rec.Actor != "olga@example.com" || rec.SubjectID != "omar@example.com" {
			t.Errorf("audit record: %+v", rec)
		}
	}
}

// The People tab: the list with status badges and how each is an
// administrator, the invitation form with its refusal beside the field and
// the e-mail kept, a flash on success, the row's button changing the
// status; an Organisation Administrator's own row has no button, and a
// post against it is refused on the page; the invitation is in the dev
// outbox naming the organisation.
func TestOrgAdminPeopleTab(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	acme := su.must(201, "POST", "/organisations", org("Acme Bank"))["OrganisationId"].(string)
	tab := env.URL + "/organisations/" + acme + "/administrators"
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()

	resp, doc := page(t, c, tab)
	if resp.StatusCode != 200 || doc.Find("[data-testid=tab-people][aria-current=page]").Length() != 1 || doc.Find("[data-testid=empty]").Length() != 1 {
		t.Fatalf("empty tab: %d %q", resp.StatusCode, doc.Find("main").Text())
	}
	_, doc = page(t, c, env.URL+"/organisations/"+acme)
	if href, _ := doc.Find("[data-testid=tab-people]").Attr("href"); href != "/organisations/"+acme+"/administrators" {
		t.Fatalf("the tab bar's People: %q", href)
	}

	st, doc := postForm(t, c, tab, url.Values{"Email": {"olga@"}})
	besideField(t, "a bad e-mail", st, 422, doc, "Email", map[string]string{"Email": "olga@"})

	st, doc = postForm(t, c, tab, url.Values{"Email": {"olga@example.com"}})
	if st != 200 || !strings.Contains(doc.Find("[data-testid=flash]").Text(), "Invitation sent to olga@example.com") {
		t.Fatalf("invite: %d %q", st, doc.Find("main").Text())
	}
	row := doc.Find("[data-testid=organisation-administrator-row]")
	if row.Length() != 1 || row.Find("[data-testid=status]").Text() != "Invited" || !strings.Contains(row.Find("[data-testid=granted-by]").Text(), "invited by admin@example.com") {
		t.Fatalf("row: %q", row.Text())
	}
	st, doc = postForm(t, c, tab, url.Values{"Email": {"olga@example.com"}})
	besideField(t, "invited twice", st, 409, doc, "Email", nil)

	_, doc = page(t, c, env.URL+"/dev/outbox")
	if msg := doc.Find("[data-testid=outbox-message]").First().Text(); !strings.Contains(msg, "olga@example.com") || !strings.Contains(msg, "Acme Bank") {
		t.Fatalf("dev outbox: %q", msg)
	}

	// The row's button deactivates.
	st, doc = postForm(t, c, tab+"/olga@example.com", url.Values{"Status": {"Inactive"}})
	if st != 200 || doc.Find("[data-testid=organisation-administrator-row] [data-testid=status]").Text() != "Inactive" ||
		!strings.Contains(doc.Find("main").Text(), "olga@example.com is now Inactive") {
		t.Fatalf("deactivate: %d %q", st, doc.Find("main").Text())
	}
	postForm(t, c, tab+"/olga@example.com", url.Values{"Status": {"Active"}})

	// Olga, signed in: her own row has no button; Omar's has.
	su.must(201, "POST", "/organisations/"+acme+"/administrators", `{"Email":"omar@example.com"}`)
	oc := webtest.Browser()
	webtest.SignIn(t, oc, env.URL, "olga@example.com").Body.Close()
	resp, doc = page(t, oc, tab)
	if resp.StatusCode != 200 {
		t.Fatalf("Olga's People tab: %d", resp.StatusCode)
	}
	doc.Find("[data-testid=organisation-administrator-row]").Each(func(_ int, r *goquery.Selection) {
		email, buttons := r.Find("[data-testid=email]").Text(), r.Find("button").Length()
		if (email == "olga@example.com") != (buttons == 0) {
			t.Errorf("row %s has %d buttons", email, buttons)
		}
	})
	st, doc = postForm(t, oc, tab+"/olga@example.com", url.Values{"Status": {"Inactive"}})
	if st != http.StatusForbidden || !strings.Contains(doc.Find("main").Text(), "your own status") {
		t.Fatalf("Olga deactivating herself: %d %q", st, doc.Find("main").Text())
	}
}
