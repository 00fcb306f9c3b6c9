package handlers

import (
	"context"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/formats"
	"github.com/trustframe/trustframe/store"
)

// FuzzDecode: the request decoder answers any body with a value or a 4xx
// error, never a panic or a 5xx.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"Email":"a@example.com","Status":"Active"}`, `{`, `[]`, `{"Email":5}`, `{"x":1}{}`, `null`, "", `{"Email":"\u0000"}`} {
		f.Add(s, "application/json")
	}
	// Nesting at the limit and past it, in arrays, objects and free-form
	// members; wide lists and objects.
	for _, n := range []int{formats.MaxJSONDepth - 1, formats.MaxJSONDepth, 2000} {
		f.Add(`{"Any":`+strings.Repeat("[", n)+strings.Repeat("]", n)+"}", "application/json")
		f.Add(strings.Repeat(`{"Any":`, n)+"1"+strings.Repeat("}", n), "application/json")
		f.Add(`{"Meta":`+strings.Repeat(`{"a":`, n)+"null"+strings.Repeat("}", n)+"}", "application/json")
	}
	f.Add(`{"Flags":[`+strings.TrimSuffix(strings.Repeat(`"x",`, 5000), ",")+"]}", "application/json")
	f.Add(`{"Meta":{`+strings.TrimSuffix(strings.Repeat(`"k":1,`, 2000), ",")+"}}", "application/json")
	f.Add("Email=a%40b&Status=Active", "application/x-www-form-urlencoded")
	f.Add("%%%", "application/x-www-form-urlencoded")
	f.Add(strings.Repeat("Flags=x&", 5000), "application/x-www-form-urlencoded")
	f.Add("x", "text/plain; charset=")
	f.Fuzz(func(t *testing.T, body, ctype string) {
		_, tooDeep := formats.JSONTooDeep([]byte(body))
		for _, path := range []string{"/api/x", "/x"} {
			r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
			r.Header.Set("Content-Type", ctype)
			var in fuzzBody
			err := Decode(httptest.NewRecorder(), r, &in)
			if err != nil {
				if e := AsError(err); e.Status < 400 || e.Status >= 500 {
					t.Fatalf("status %d for %q (%s)", e.Status, body, ctype)
				}
			}
			if mt, _, _ := mime.ParseMediaType(ctype); err == nil && tooDeep && (mt == "application/json" || mt == "") {
				t.Fatalf("a JSON body nested deeper than %d levels was read: %q", formats.MaxJSONDepth, body)
			}
		}
	})
}

// fuzzBody is what the decoder fuzz targets decode into: strings, a list,
// free-form members.
type fuzzBody struct {
	Email  string         `json:"Email"`
	Status string         `json:"Status"`
	Flags  []string       `json:"Flags"`
	Any    any            `json:"Any"`
	Meta   map[string]any `json:"Meta"`
}

// FuzzDecodeMultipart: a console form sent as multipart/form-data, any
// parts and any bytes, is read or refused with a 4xx, never a panic or a
// 5xx; over 1 MiB it is 413.
func FuzzDecodeMultipart(f *testing.F) {
	part := func(name, value string) string {
		return "--b\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" + value + "\r\n"
	}
	f.Add(part("Email", "a@example.com") + "--b--\r\n")
	f.Add(part("Email", "a@example.com") + part("Status", "Active") + "--b--\r\n")
	f.Add(strings.Repeat(part("Flags", "x"), 3000) + "--b--\r\n")  // wide: many parts
	f.Add(part("Email", strings.Repeat("a", 1<<16)) + "--b--\r\n") // a long value
	f.Add("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x\"\r\n\r\n" + strings.Repeat("x", 4096) + "\r\n--b--\r\n")
	f.Add("--b\r\nContent-Disposition: form-data\r\n\r\nno name\r\n--b--\r\n")
	f.Add("--b\r\n" + strings.Repeat("X-H: v\r\n", 2000) + "\r\n\r\n--b--\r\n") // many part headers
	f.Add("--b")
	f.Add("")
	f.Fuzz(func(t *testing.T, body string) {
		r := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(body))
		r.Header.Set("Content-Type", "multipart/form-data; boundary=b")
		var in fuzzBody
		err := Decode(httptest.NewRecorder(), r, &in)
		if err == nil {
			if len(body) > MaxBody {
				t.Fatalf("a body of %d bytes was read", len(body))
			}
			return
		}
		if e := AsError(err); e.Status < 400 || e.Status >= 500 {
			t.Fatalf("status %d for %q", e.Status, body)
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
	// Wide: a header at and over its limits, a long row, many columns.
	f.Add(strings.Repeat(",", maxImportHeader-1) + "\n")
	f.Add(strings.Repeat(",", maxImportHeader) + "\n")
	f.Add(strings.Repeat(";", 3000) + "\nA;1;GB\n")
	f.Add("OrganisationName,RegistrationNumber,CountryOfRegistration\n" + strings.Repeat("A,", 40000) + "1,GB\n")
	f.Add("OrganisationName,RegistrationNumber,CountryOfRegistration\n\"" + strings.Repeat("a\n", 40000) + "\",1,GB\n")
	f.Add("\ufeffOrganisationName;RegistrationNumber;CountryOfRegistration\nA;1;GB\n")
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
		for i, line := range strings.Split(file, "\n") {
			if limit := map[bool]int{true: maxImportHeader, false: maxImportLine}[i == 0]; len(line) > limit {
				t.Fatalf("line %d of %d bytes was read", i+1, len(line))
			}
		}
		for _, o := range orgs {
			if o.OrganisationName == "" || o.Status == "" {
				t.Fatalf("an invalid organisation passed: %+v", o)
			}
		}
	})
}
