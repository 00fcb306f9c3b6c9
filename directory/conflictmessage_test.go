package directory

import (
	"strings"
	"testing"
)

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
		`Contact type "Billing" is in use|{"Contacts":[1]}`, // not a list of objects
	} {
		if _, _, ok := ParseConflict(bad); ok {
			t.Errorf("%q: parsed, want the generic fallback", bad)
		}
	}
}

// FuzzParseConflict never panics and never claims a payload it did not parse.
func FuzzParseConflict(f *testing.F) {
	f.Add(`Contact type "x" is in use|{"Contacts":[{"ContactId":"1"}]}`)
	f.Add(`no separator`)
	f.Add(`a|{"b":[1]}`)
	f.Fuzz(func(t *testing.T, msg string) {
		summary, _, ok := ParseConflict(msg)
		if ok && !strings.HasPrefix(msg, summary+"|") {
			t.Fatalf("summary %q is not the text before the separator", summary)
		}
	})
}
