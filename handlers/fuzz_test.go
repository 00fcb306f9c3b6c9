package handlers

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
