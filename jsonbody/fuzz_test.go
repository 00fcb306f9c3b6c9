package jsonbody

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/formats"
)

// FuzzCheck: Check answers any text as the walk on encoding/json's
// Decoder.Token does (tokenCheck): the same refusal, with the same message
// and member, or none; nesting and width as the seeds of the request
// decoder's FuzzDecode.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		`{"OrganisationName":"A","Status":"Active","Tags":[{"Name":"x"}],"Meta":{"a":{"b":1}},"Any":[{"k":1}],"When":"2026-01-02T03:04:05Z","Labels":{"x":"y","X":"z"},"NoTag":"n"}`,
		`{"organisationName":"A"}`, `{"STATUS":1}`, `{"Tags":[{"Name":"x"},{"name":"y"}]}`, `{"ſtatus":1}`, `{"\u0053tatus":1,"Status":2}`,
		`{"Status":"Inactive","Status":"Active"}`, `{"Meta":{"a":1,"\u0061":2}}`, `{"Any":[{"k":{"z":1,"z":2}}]}`, `{"Status":1,"Status"}`,
		`{"When":"yesterday"}`, `{"When":{"a":1}}`, `{"When":null}`, `{"When":12}`, `{"When":"2026-01-02T03:04:05\u005a"}`,
		"{\"Meta\":{\"\xff\":1}}", "{\"Any\":\"\xc3\"}", `{"Any":"\ud800"}`, `{"Any":"\ud83d\ude00"}`, `{"Any":"\\ufffd\ud800"}`,
		`{"Any":"\uFFFD\udc00"}`, `{"\ud800":1}`, `{"Any":[1,]}`, `{"Any":[01]}`, `{"Any":-}`, `{"Any":1.e5}`, `[1 2]`, `{"a" 1}`, `{,}`,
		`{"a":1}{"a":1,"a":2}`, ` "\ud800" `, `tru`, `nullx`, "",
	} {
		f.Add(s)
	}
	for _, n := range []int{formats.MaxJSONDepth, 200} {
		f.Add(`{"Any":` + strings.Repeat("[", n) + strings.Repeat("]", n) + "}")
		f.Add(strings.Repeat(`{"Any":`, n) + "1" + strings.Repeat("}", n))
		f.Add(`{"Meta":` + strings.Repeat(`{"a":`, n) + `{"z":1,"z":2}` + strings.Repeat("}", n) + "}")
	}
	f.Add(`{"Meta":{` + strings.TrimSuffix(strings.Repeat(`"k":1,`, 200), ",") + "}}")
	var wide strings.Builder
	for i := range 300 {
		fmt.Fprintf(&wide, `"%x":%d,`, i, i)
	}
	f.Add(`{"Meta":{` + wide.String() + `"12b":0}}`)
	t := reflect.TypeOf(&sample{})
	f.Fuzz(func(tt *testing.T, body string) {
		got := Check(context.Background(), []byte(body), t)
		want := tokenCheck(context.Background(), []byte(body), t)
		if !reflect.DeepEqual(got, want) {
			tt.Fatalf("Check(%q) = %#v, encoding/json's walk %#v", body, got, want)
		}
	})
}
