package handlers

import (
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/formats"
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
