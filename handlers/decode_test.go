package handlers

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

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
