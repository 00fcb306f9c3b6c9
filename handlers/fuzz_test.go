package handlers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/store"
)

// FuzzDecode: the request decoder answers any body with a value or a 4xx
// error, never a panic or a 5xx.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"Email":"a@example.com","Status":"Active"}`, `{`, `[]`, `{"Email":5}`, `{"x":1}{}`, `null`, "", `{"Email":"\u0000"}`} {
		f.Add(s, "application/json")
	}
	f.Add("Email=a%40b&Status=Active", "application/x-www-form-urlencoded")
	f.Add("%%%", "application/x-www-form-urlencoded")
	f.Add("x", "text/plain; charset=")
	f.Fuzz(func(t *testing.T, body, ctype string) {
		for _, path := range []string{"/api/x", "/x"} {
			r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
			r.Header.Set("Content-Type", ctype)
			var in struct {
				Email  string   `json:"Email"`
				Status string   `json:"Status"`
				Flags  []string `json:"Flags"`
			}
			if err := Decode(httptest.NewRecorder(), r, &in); err != nil {
				if e := AsError(err); e.Status < 400 || e.Status >= 500 {
					t.Fatalf("status %d for %q (%s)", e.Status, body, ctype)
				}
			}
		}
	})
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

func TestDecodeMultipartForm(t *testing.T) {
	body := "--b\r\nContent-Disposition: form-data; name=\"Email\"\r\n\r\na@example.com\r\n--b--\r\n"
	r := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(body))
	r.Header.Set("Content-Type", "multipart/form-data; boundary=b")
	var in struct {
		Email string `json:"Email"`
	}
	if err := Decode(httptest.NewRecorder(), r, &in); err != nil || in.Email != "a@example.com" {
		t.Fatalf("%v %q", err, in.Email)
	}
}

// importStore answers the one question an import asks before writing.
type importStore struct{ organisationStore }

func (importStore) ListFlags(context.Context, string) ([]store.Flag, error) {
	return []store.Flag{{FlagID: "f1", Name: "Pilot", Type: "Organisation", Status: "Active"}}, nil
}

// FuzzParseImport: any file is organisations that pass validation, or a
// 4xx that says why; never a panic.
func FuzzParseImport(f *testing.F) {
	f.Add("OrganisationName,RegistrationNumber,CountryOfRegistration\nAcme,1,GB\n")
	f.Add("OrganisationId,OrganisationName,RegistrationNumber,CountryOfRegistration,Status,Flags\n,A,1,GB,Withdrawn,Pilot; Nope\n")
	f.Add("\ufeffOrganisationName,RegistrationNumber,CountryOfRegistration\n\"A,\"\"b\"\"\",1,GB\n")
	f.Add("OrganisationName\n")
	f.Add("a,b\n\"unterminated")
	f.Add("")
	h := &Organisations{Org: &Org{Base: &Base{}}, Store: importStore{}}
	f.Fuzz(func(t *testing.T, file string) {
		r := httptest.NewRequest(http.MethodPost, "/api/organisations/import", nil)
		orgs, err := h.parseImport(r, &importReader{r: strings.NewReader(file)})
		if err != nil {
			if e := AsError(err); e.Status < 400 || e.Status >= 500 {
				t.Fatalf("status %d for %q", e.Status, file)
			}
			return
		}
		if len(orgs) == 0 {
			t.Fatalf("no organisations and no error for %q", file)
		}
		for _, o := range orgs {
			if o.OrganisationName == "" || o.Status == "" {
				t.Fatalf("an invalid organisation passed: %+v", o)
			}
		}
	})
}
