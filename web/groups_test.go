package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// Issue 18 (docs/design.md §16): a binding's GroupsClaim and GroupRoles
// round-trip through the API; every bad mapping is a 422 naming the field
// and nothing is saved.
func TestGroupMappingsAPIAndBadInput(t *testing.T) {
	op := newFakeOP(t)
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	base := `"Name":"kc","EmailDomains":["example.com"],"Issuer":"` + op.srv.URL + `"`
	created := admin.must(201, "POST", "/references/identity-providers", `{`+base+`}`)
	if created["GroupsClaim"] != "groups" || len(created["GroupRoles"].([]any)) != 0 {
		t.Fatalf("defaults: %v", created)
	}
	long := strings.Repeat("g", 257)
	var many []string
	for i := range 101 {
		many = append(many, `{"Group":"g`+strings.Repeat("x", i)+`","Role":"DataAdministrator"}`)
	}
	for name, c := range map[string]struct {
		body   string
		status int
		field  string
	}{
		"unknown role":     {`{` + base + `,"GroupRoles":[{"Group":"ops","Role":"Admin"}]}`, 422, "GroupRoles[0].Role"},
		"no role":          {`{` + base + `,"GroupRoles":[{"Group":"ops"}]}`, 422, "GroupRoles[0].Role"},
		"empty group":      {`{` + base + `,"GroupRoles":[{"Group":" ","Role":"SuperUser"}]}`, 422, "GroupRoles[0].Group"},
		"duplicate group":  {`{` + base + `,"GroupRoles":[{"Group":"ops","Role":"SuperUser"},{"Group":"ops","Role":"DataAdministrator"}]}`, 422, "GroupRoles[1].Group"},
		"group too long":   {`{` + base + `,"GroupRoles":[{"Group":"` + long + `","Role":"SuperUser"}]}`, 422, "GroupRoles[0].Group"},
		"control in group": {`{` + base + `,"GroupRoles":[{"Group":"a\u0000b","Role":"SuperUser"}]}`, 422, "GroupRoles[0].Group"},
		"too many":         {`{` + base + `,"GroupRoles":[` + strings.Join(many, ",") + `]}`, 422, "GroupRoles"},
		"bad claim":        {`{` + base + `,"GroupsClaim":"my groups"}`, 422, "GroupsClaim"},
		"not a list":       {`{` + base + `,"GroupRoles":{"Group":"ops"}}`, 400, ""},
		"unknown member":   {`{` + base + `,"GroupRoles":[{"Group":"ops","Role":"SuperUser","Weight":1}]}`, 400, ""},
	} {
		t.Run(name, func(t *testing.T) {
			r, m := admin.do("PUT", "/references/identity-providers/kc", c.body)
			if r.StatusCode != c.status {
				t.Fatalf("%d %v", r.StatusCode, m)
			}
			if c.field != "" && fieldsOf(m)[c.field] == "" {
				t.Fatalf("no error on %s: %v", c.field, m)
			}
		})
	}
	if _, m := admin.do("GET", "/references/identity-providers/kc", ""); len(m["GroupRoles"].([]any)) != 0 {
		t.Fatalf("something was saved: %v", m)
	}
	// A good mapping is saved and answered; the API needs no confirmation.
	m := admin.must(200, "PUT", "/references/identity-providers/kc", `{`+base+`,"GroupsClaim":"roles","GroupRoles":[{"Group":" ops ","Role":"SuperUser"},{"Group":"data","Role":"DataAdministrator"}]}`)
	if m["GroupsClaim"] != "roles" || toJSON(t, m["GroupRoles"]) != `[{"Group":"ops","Role":"SuperUser"},{"Group":"data","Role":"DataAdministrator"}]` {
		t.Fatalf("saved: %v", m)
	}
}

// In the browser, mapping a group to SuperUser is saved only once it is
// confirmed; a bad line is named beside the field.
func TestGroupMappingFormConfirmsSuperUser(t *testing.T) {
	op := newFakeOP(t)
	env := webtest.Start(t, nil)
	admin := newAPI(t, env, "admin@example.com")
	admin.must(201, "POST", "/references/identity-providers", `{"Name":"kc","EmailDomains":["example.com"],"Issuer":"`+op.srv.URL+`"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	form := url.Values{"Issuer": {op.srv.URL}, "EmailDomains": {"example.com"}, "Status": {"Active"}, "GroupsClaim": {"groups"},
		"GroupRoles": {"data = DataAdministrator\nops = SuperUser\n"}}
	post := func(f url.Values) (int, string) {
		resp, err := c.PostForm(env.URL+"/references/identity-providers/kc", f)
		if err != nil {
			t.Fatal(err)
		}
		doc := docOf(t, resp)
		return resp.StatusCode, doc.Find(`[data-testid=error-ConfirmSuperUser], [data-testid=error-GroupRoles]`).Text()
	}
	if st, msg := post(form); st != 422 || !strings.Contains(msg, "Every member of ops at kc will be a Super User") {
		t.Fatalf("unconfirmed: %d %q", st, msg)
	}
	if _, m := admin.do("GET", "/references/identity-providers/kc", ""); len(m["GroupRoles"].([]any)) != 0 {
		t.Fatalf("saved without confirmation: %v", m)
	}
	bad := url.Values{}
	for k, v := range form {
		bad[k] = v
	}
	bad.Set("GroupRoles", "data = DataAdministrator\nops = Owner")
	if st, msg := post(bad); st != 422 || !strings.Contains(msg, "Line 2: Role must be DataAdministrator or SuperUser") {
		t.Fatalf("bad line: %d %q", st, msg)
	}
	form.Set("ConfirmSuperUser", "on")
	if st, msg := post(form); st != 200 || msg != "" {
		t.Fatalf("confirmed: %d %q", st, msg)
	}
	if _, m := admin.do("GET", "/references/identity-providers/kc", ""); toJSON(t, m["GroupRoles"]) != `[{"Group":"data","Role":"DataAdministrator"},{"Group":"ops","Role":"SuperUser"}]` {
		t.Fatalf("after confirmation: %v", m)
	}
	// Saving again with the same SuperUser mapping asks nothing more.
	form.Del("ConfirmSuperUser")
	if st, msg := post(form); st != 200 || msg != "" {
		t.Fatalf("unchanged mapping: %d %q", st, msg)
	}
}

// TestGroupMappingRefusalsSpeakInLines: the identity provider form's group
// mappings are lines, and their refusals name lines: a line without "="
// is told its role is missing (it was told "Role must be DataAdministrator
// or SuperUser", as if it had named a wrong one), and a group mapped twice
// names the first line (it named "GroupRoles[0]", the API's index).
func TestGroupMappingRefusalsSpeakInLines(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	resp, err := c.PostForm(env.URL+"/references/identity-providers", url.Values{"Name": {"Ops"}, "Issuer": {"https://op.example"},
		"EmailDomains": {"example.com"}, "GroupRoles": {"ops = DataAdministrator\nops = DataAdministrator\nauditors"}})
	if err != nil {
		t.Fatal(err)
	}
	doc := docOf(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422", resp.StatusCode)
	}
	msg := doc.Find("[data-testid=error-GroupRoles]").Text()
	if strings.Contains(msg, "GroupRoles[") {
		t.Errorf("the message names the API's index: %q", msg)
	}
	if !strings.Contains(msg, "Line 2: Group ops is mapped already (line 1)") {
		t.Errorf("the repeated group: %q", msg)
	}
	if !strings.Contains(msg, "Line 3: Role is required") {
		t.Errorf("the line without a role: %q", msg)
	}
}
