package handlers

import "testing"

func TestParseConflict(t *testing.T) {
	summary, items, ok := ParseConflict(`Contact type "Billing" is in use by 1 contact(s)|{"Contacts":[{"ContactId":"c1","Name":"Ann Lee","OrganisationId":"o1"}]}`)
	if !ok || summary != `Contact type "Billing" is in use by 1 contact(s)` || len(items) != 1 || items[0] != "Contact: ContactId c1, Name Ann Lee, OrganisationId o1" {
		t.Fatalf("%v %q %q", ok, summary, items)
	}
	for _, bad := range []string{
		`Contact type "Billing" is in use`,     // no separator
		`Contact type "Billing" is in use|`,    // empty payload
		`Contact type "Billing" is in use|{`,   // not JSON
		`Contact type "Billing" is in use|[1]`, // not an object
		`Contact type "Billing" is in use|{"Contacts":5}`,
	} {
		if _, _, ok := ParseConflict(bad); ok {
			t.Errorf("%q: parsed, want the generic fallback", bad)
		}
	}
}

func TestBestAccept(t *testing.T) {
	cases := map[string]string{
		"":                                      "text/html",
		"application/json":                      "application/json",
		"text/html,application/json;q=0.9":      "text/html",
		"application/json, text/html;q=0.5":     "application/json",
		"*/*":                                   "text/html",
		"application/*":                         "application/json",
		"text/html;q=0, application/json;q=0.1": "application/json",
		"image/png":                             "text/html",
	}
	for h, want := range cases {
		if got := bestAccept(h, "text/html", "application/json"); got != want {
			t.Errorf("%q: %s, want %s", h, got, want)
		}
	}
}
