package handlers

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"mime"
	"net/http"

	"github.com/trustframe/trustframe/formats"
)

type keysInner struct {
	Name string `json:"Name"`
}

type keysBase struct {
	Status string `json:"Status"`
}

type keysBody struct {
	keysBase
	OrganisationName string            `json:"OrganisationName"`
	Tags             []keysInner       `json:"Tags"`
	Meta             map[string]any    `json:"Meta"`
	Any              any               `json:"Any"`
	When             *time.Time        `json:"When"`
	Labels           map[string]string `json:"Labels"`
	Hidden           string            `json:"-"`
	NoTag            string
}

// TestDecodeRefusesWhatEncodingJSONWouldGuess: a member name in another
// case and a repeated member are refused with the member named, at any
// depth; exact names, maps' own keys and nested free-form objects pass.
func TestDecodeRefusesWhatEncodingJSONWouldGuess(t *testing.T) {
	for _, c := range []struct {
		name, body string
		code       string // "" = accepted
		field      string
	}{
		{"exact", `{"OrganisationName":"A","Status":"Active","Tags":[{"Name":"x"}],"Meta":{"a":{"b":1}},"Any":[{"k":1}],"When":"2026-01-02T03:04:05Z","Labels":{"x":"y","X":"z"},"NoTag":"n"}`, "", ""},
		{"case of a field", `{"organisationName":"A"}`, CodeUnknownField.Name, "organisationName"},
		{"case of an embedded field", `{"STATUS":"Active"}`, CodeUnknownField.Name, "STATUS"},
		{"case in a list of objects", `{"Tags":[{"Name":"x"},{"name":"y"}]}`, CodeUnknownField.Name, "Tags.name"},
		{"case of a field without tag", `{"notag":"n"}`, CodeUnknownField.Name, "notag"},
		{"repeated member", `{"Status":"Inactive","Status":"Active"}`, CodeMalformedJSON.Name, "Status"},
		{"repeated in a list of objects", `{"Tags":[{"Name":"x","Name":"y"}]}`, CodeMalformedJSON.Name, "Tags.Name"},
		{"repeated in a free-form object", `{"Meta":{"a":1,"a":2}}`, CodeMalformedJSON.Name, "Meta.a"},
		{"repeated deep in any", `{"Any":[{"k":{"z":1,"z":2}}]}`, CodeMalformedJSON.Name, "Any.k.z"},
		{"unknown field", `{"Nope":1}`, CodeUnknownField.Name, "Nope"},
		{"the json:\"-\" field", `{"Hidden":"h"}`, CodeUnknownField.Name, "Hidden"},
		{"half a surrogate pair", `{"NoTag":"\ud800"}`, CodeValidationFailed.Name, "NoTag"},
		{"half a pair after an escaped backslash and ufffd", `{"NoTag":"\\ufffd\ud800"}`, CodeValidationFailed.Name, "NoTag"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/api/x", strings.NewReader(c.body))
			r.Header.Set("Content-Type", "application/json")
			var dst keysBody
			err := Decode(httptest.NewRecorder(), r, &dst)
			if c.code == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if dst.OrganisationName != "A" || dst.Status != "Active" || len(dst.Tags) != 1 || dst.Labels["X"] != "z" {
					t.Fatalf("decoded %+v", dst)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Code != c.code || len(e.Fields) == 0 || e.Fields[0].Field != c.field {
				t.Fatalf("got %#v, want %s naming %s", err, c.code, c.field)
			}
		})
	}
}

// TestDecodeRefusesBodiesNestedDeeperThanTheLimit: a body nested up to
// formats.MaxJSONDepth is read; one level more is 400 malformed_json naming
// the limit, before anything walks it; brackets in strings do not count.
func TestDecodeRefusesBodiesNestedDeeperThanTheLimit(t *testing.T) {
	nested := func(levels int) string { // levels counts the body's own object
		return `{"Any":` + strings.Repeat("[", levels-1) + `"[[[["` + strings.Repeat("]", levels-1) + "}"
	}
	for _, c := range []struct {
		name, body string
		refused    bool
	}{
		{"at the limit", nested(formats.MaxJSONDepth), false},
		{"one level more", nested(formats.MaxJSONDepth + 1), true},
		{"20,000 levels", strings.Repeat(`{"Any":`, 20000) + "1" + strings.Repeat("}", 20000), true},
	} {
		r := httptest.NewRequest("POST", "/api/x", strings.NewReader(c.body))
		r.Header.Set("Content-Type", "application/json")
		var dst keysBody
		err := Decode(httptest.NewRecorder(), r, &dst)
		if !c.refused {
			if err != nil {
				t.Errorf("%s: refused: %v", c.name, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Status != 400 || e.Code != CodeMalformedJSON.Name || !strings.Contains(e.Message, "limit of 32 levels") {
			t.Errorf("%s: %#v, want 400 malformed_json naming the limit", c.name, err)
		}
	}
}

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
