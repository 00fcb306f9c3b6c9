package web_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// csvOfSize is an import file of exactly n bytes: organisations whose
// LegalEntityName, 2,000 characters, is too long (so a file read whole is a
// 422), each on a line of the file under its 64 KiB limit.
func csvOfSize(n int) string {
	var b strings.Builder
	b.WriteString("OrganisationName,RegistrationNumber,CountryOfRegistration,LegalEntityName\n")
	row := "A,1,GB," + strings.Repeat("x", 2000) + "\n"
	for b.Len()+2*len(row) < n {
		b.WriteString(row)
	}
	b.WriteString("A,1,GB," + strings.Repeat("x", n-b.Len()-len("A,1,GB,\n")) + "\n")
	return b.String()
}

// TestImportOver10MiBIs413: a text/csv import of 10 MiB is read (and
// judged on its content); one byte more, or 11 MiB, is 413.
func TestImportOver10MiBIs413(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	for _, c := range []struct {
		name   string
		size   int
		status int
	}{
		{"10 MiB", 10 << 20, 422},
		{"10 MiB + 1", 10<<20 + 1, 413},
		{"11 MiB", 11 << 20, 413},
	} {
		body := csvOfSize(c.size)
		if len(body) != c.size {
			t.Fatalf("%s: built %d bytes", c.name, len(body))
		}
		if r, m := a.do("POST", "/organisations/import", body, "Content-Type", "text/csv"); r.StatusCode != c.status {
			t.Errorf("%s: %d %.200v, want %d", c.name, r.StatusCode, m, c.status)
		}
	}
}

// TestOversizedCertificateMultipartIs413: the certificate wizard's review
// step and the upload API answer 413 to a multipart body over 1 MiB, not
// 400.
func TestOversizedCertificateMultipartIs413(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	big := func() (string, *bytes.Buffer) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		mw.WriteField("type", "qseal")
		fw, _ := mw.CreateFormFile("file", "cert.pem")
		fw.Write(bytes.Repeat([]byte("A"), 2<<20))
		mw.Close()
		return mw.FormDataContentType(), &buf
	}
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	ct, body := big()
	req, _ := http.NewRequest("POST", env.URL+"/organisations/"+oid+"/certificates/new/review", body)
	req.Header.Set("Content-Type", ct)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("review: %d, want 413", resp.StatusCode)
	}
	ct, body = big()
	req, _ = http.NewRequest("POST", env.URL+"/api/organisations/"+oid+"/certificates/qseal", body)
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Authorization", "Bearer "+a.token)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("upload API: %d, want 413", resp.StatusCode)
	}
}

// TestRequestSizeLimitsAnswers pins the answer to each limit on what a
// request may make the server read: a JSON body, a console form and a
// multipart form over 1 MiB are 413 too_large; a JSON body nested deeper
// than 32 levels is 400 malformed_json naming the limit (docs/design.md
// §4). A body nested 20,000 deep (117 KiB) is refused at once, and wide
// bodies of exactly 1 MiB (a list of numbers, an object of many members,
// many unknown members, long strings) are answered as any body is, each
// for a small multiple of its size in memory: the whole request, server
// included (docs/benchmarks.md).
func TestRequestSizeLimitsAnswers(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	over := strings.Repeat("x", 1<<20+1)
	multipartBody := func() (string, string) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		mw.WriteField("Description", over)
		mw.Close()
		return mw.FormDataContentType(), buf.String()
	}
	mpType, mpBody := multipartBody()
	deep := strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000)
	// Wide bodies of exactly 1 MiB, the largest read: the key walk reads
	// every member and value of each before the decoder does.
	numbers := wideJSON(`{"Policy":[`, "0", "]}", func(int) string { return "0" })
	members := wideJSON(`{"Policy":{`, `"":0`, "}}", func(i int) string { return fmt.Sprintf(`"%x":0`, i) })
	unknown := wideJSON(`{`, `"":0`, "}", func(i int) string { return fmt.Sprintf(`"%x":0`, i) })
	strs := wideJSON(`{"Policy":[`, `""`, "]}", func(int) string { return `"` + strings.Repeat("x", 1000) + `"` })
	for _, c2 := range []struct {
		name, ct, body string
		api            bool
		status         int
		problem        string // the end of the problem type, or "" for a page
		says           string
		perByte        uint64 // bytes allocated a byte sent beyond 4 MiB: 8 unless said
	}{
		{"JSON over 1 MiB", "application/json", `{"Description":"` + over + `"}`, true, 413, "/too-large", "larger than 1048576 bytes", 0},
		{"JSON 33 levels deep", "application/json", strings.Repeat("[", 33) + strings.Repeat("]", 33), true, 400, "/malformed-json", "limit of 32 levels", 0},
		{"JSON 20,000 levels deep", "application/json", deep, true, 400, "/malformed-json", "limit of 32 levels", 0},
		{"JSON of 1 MiB: a list of numbers", "application/json", numbers, true, 400, "/unsupported-entity-type", "EntityType  is not supported", 0},
		// The key walk keeps each open object's member names (16 bytes a
		// name); encoding/json's DisallowUnknownFields formats an error
		// for every unknown member, though it answers the first.
		{"JSON of 1 MiB: an object of many members", "application/json", members, true, 400, "/unsupported-entity-type", "EntityType  is not supported", 16},
		{"JSON of 1 MiB: many unknown members", "application/json", unknown, true, 400, "/unknown-field", "unknown field", 24},
		{"JSON of 1 MiB: long strings", "application/json", strs, true, 400, "/unsupported-entity-type", "EntityType  is not supported", 0},
		{"form over 1 MiB", "application/x-www-form-urlencoded", "Description=" + over, false, 413, "", "larger than 1048576 bytes", 0},
		{"multipart form over 1 MiB", mpType, mpBody, false, 413, "", "larger than 1048576 bytes", 0},
	} {
		var status int
		var text string
		perByte := c2.perByte
		if perByte == 0 {
			perByte = 8
		}
		n := mustAllocateUnder(t, 4<<20+perByte*uint64(len(c2.body)), func() {
			if c2.api {
				r, m := a.do("POST", "/references/role-metadata-policies", c2.body, "Content-Type", c2.ct)
				status, text = r.StatusCode, fmt.Sprint(m["type"], " ", m["detail"])
				return
			}
			req, _ := http.NewRequest("POST", env.URL+"/references/role-metadata-policies", strings.NewReader(c2.body))
			req.Header.Set("Content-Type", c2.ct)
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			status, text = resp.StatusCode, docOf(t, resp).Text()
		})
		if status != c2.status || !strings.Contains(text, c2.problem) || !strings.Contains(text, c2.says) {
			t.Errorf("%s: %d %.300q, want %d saying %q", c2.name, status, text, c2.status, c2.says)
		}
		t.Logf("%s: %d bytes sent, %d allocated", c2.name, len(c2.body), n)
	}
}

// wideJSON is a JSON text of exactly handlers.MaxBody bytes: open, then
// item(0), item(1), … separated by commas while they fit, then last and
// close, padded with spaces before close.
func wideJSON(open, last, close string, item func(int) string) string {
	var b strings.Builder
	b.WriteString(open)
	for i := 0; ; i++ {
		it := item(i) + ","
		if b.Len()+len(it)+len(last)+len(close) > 1<<20 {
			break
		}
		b.WriteString(it)
	}
	b.WriteString(last)
	b.WriteString(strings.Repeat(" ", 1<<20-b.Len()-len(close)))
	b.WriteString(close)
	return b.String()
}
