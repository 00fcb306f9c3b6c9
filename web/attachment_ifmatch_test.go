package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestAttachmentPutHonoursIfMatch: an attachment carries an ETag (on
// create, on its own GET, after an update), a PUT with a stale If-Match is
// 412 and changes nothing, JSON or multipart alike, and the current one is
// applied.
func TestAttachmentPutHonoursIfMatch(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	base := "/organisations/" + oid + "/key-material"
	k := webtest.Key(t, "p256")
	pub, _ := json.Marshal(jose.JSONWebKey{Key: k.Public()})
	id := a.must(201, "POST", base, `{"PublicJwk":`+string(pub)+`,"Use":"sig"}`)["KeyMaterialID"].(string)

	r, att := a.multipart("POST", base+"/"+id+"/attachments", "policy.txt", []byte("v1"), "first")
	created := r.Header.Get("ETag")
	if r.StatusCode != 201 || created == "" {
		t.Fatalf("create: %d, ETag %q", r.StatusCode, created)
	}
	path := base + "/" + id + "/attachments/" + att["KeyMaterialAttachmentID"].(string)
	if r, m := a.do("GET", path, ""); r.StatusCode != 200 || r.Header.Get("ETag") != created || m["Description"] != "first" {
		t.Fatalf("get: %d, ETag %q (created %q) %v", r.StatusCode, r.Header.Get("ETag"), created, m)
	}
	r, m := a.do("PUT", path, `{"Description":"second"}`, "If-Match", created)
	updated := r.Header.Get("ETag")
	if r.StatusCode != 200 || m["Description"] != "second" || updated == "" || updated == created {
		t.Fatalf("update with the current ETag: %d, ETag %q %v", r.StatusCode, updated, m)
	}
	// The ETag read at creation is stale now.
	if r, m := a.do("PUT", path, `{"Description":"lost update"}`, "If-Match", created); r.StatusCode != 412 || m["type"] != "https://trustframe.dev/problems/stale-etag" {
		t.Fatalf("stale If-Match (JSON): %d %v", r.StatusCode, m)
	}
	ct, body := multipartBody(t, "other.txt", []byte("v2"), "lost file")
	req, _ := http.NewRequest("PUT", a.base+"/api"+path, body)
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("If-Match", created)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 412 {
		t.Fatalf("stale If-Match (multipart): %d", resp.StatusCode)
	}
	cur, content, err := env.DB.GetAttachment(context.Background(), id, att["KeyMaterialAttachmentID"].(string), true)
	if err != nil || cur.Description != "second" || !bytes.Equal(content, []byte("v1")) {
		t.Fatalf("a 412 changed the attachment: %+v %q %v", cur, content, err)
	}
	if r, _ := a.do("GET", path, ""); r.Header.Get("ETag") != updated {
		t.Fatalf("GET ETag %q, the update answered %q", r.Header.Get("ETag"), updated)
	}
}

// TestAttachmentPutUnderAnotherKeyMaterialRevealsNothing: a PUT naming
// another organisation's key material answers the same whether the
// attachment exists or not (the key material is looked up first).
func TestAttachmentPutUnderAnotherKeyMaterialRevealsNothing(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	orgA := a.must(201, "POST", "/organisations", org("Alpha"))["OrganisationId"].(string)
	orgB := a.must(201, "POST", "/organisations", org("Betazed"))["OrganisationId"].(string)
	pub, _ := json.Marshal(jose.JSONWebKey{Key: webtest.Key(t, "p256").Public()})
	kmB := a.must(201, "POST", "/organisations/"+orgB+"/key-material", `{"PublicJwk":`+string(pub)+`,"Use":"sig"}`)["KeyMaterialID"].(string)
	_, att := a.multipart("POST", "/organisations/"+orgB+"/key-material/"+kmB+"/attachments", "b.txt", []byte("b"), "B's")
	attB := att["KeyMaterialAttachmentID"].(string)
	under := "/organisations/" + orgA + "/key-material/" + kmB + "/attachments/"
	r1, m1 := a.do("PUT", under+attB, `{"Description":"x"}`)
	r2, m2 := a.do("PUT", under+"00000000-0000-4000-8000-000000000000", `{"Description":"x"}`)
	if r1.StatusCode != 404 || r2.StatusCode != 404 || m1["detail"] != m2["detail"] {
		t.Fatalf("existing %d %v, missing %d %v", r1.StatusCode, m1, r2.StatusCode, m2)
	}
}
