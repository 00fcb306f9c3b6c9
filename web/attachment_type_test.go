package web_test

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"testing"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/web/webtest"
)

// An attachment uploaded as a script or a stylesheet is not served as one:
// the console's CSP allows scripts and styles from its own origin, so a
// page that named the download in a script or link element would run it.
func TestAttachmentIsNeverServedAsScriptOrStyle(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	base := "/organisations/" + oid + "/key-material"
	k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &k.PublicKey})
	id := a.must(201, "POST", base, `{"PublicJwk":`+string(pub)+`,"Use":"sig"}`)["KeyMaterialID"].(string)
	for _, tc := range []struct{ uploaded, served string }{
		{"text/javascript", "application/octet-stream"},
		{"application/javascript; charset=utf-8", "application/octet-stream"},
		{"application/x-ecmascript", "application/octet-stream"},
		{"TEXT/CSS", "application/octet-stream"},
		{"application/pdf", "application/pdf"},
	} {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="file"; filename="x.js"`)
		h.Set("Content-Type", tc.uploaded)
		fw, _ := mw.CreatePart(h)
		fw.Write([]byte("alert(1)"))
		mw.Close()
		req, _ := http.NewRequest("POST", env.URL+"/api"+base+"/"+id+"/attachments", &buf)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Authorization", "Bearer "+a.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var att map[string]any
		json.NewDecoder(resp.Body).Decode(&att)
		resp.Body.Close()
		if resp.StatusCode != 201 {
			t.Fatalf("%s: upload %d %v", tc.uploaded, resp.StatusCode, att)
		}
		req, _ = http.NewRequest("GET", env.URL+"/api"+base+"/"+id+"/attachments/"+att["KeyMaterialAttachmentID"].(string)+"/content", nil)
		req.Header.Set("Authorization", "Bearer "+a.token)
		dl, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		dl.Body.Close()
		if got := dl.Header.Get("Content-Type"); dl.StatusCode != 200 || got != tc.served {
			t.Errorf("uploaded as %s: served %d as %q, want %q", tc.uploaded, dl.StatusCode, got, tc.served)
		}
	}
}
