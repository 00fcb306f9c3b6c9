package web_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestKeyMaterialEditRefusalIsBesideItsField: a refused edit of key
// material (a description too long) showed "At most 500 characters." under
// the key's name, naming no field, and the form came back with the old
// description: what was typed was lost. The message stands beside the
// field, which keeps what was typed.
func TestKeyMaterialEditRefusalIsBesideItsField(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Acme"))["OrganisationId"].(string)
	k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &k.PublicKey})
	km := a.must(201, "POST", "/organisations/"+oid+"/key-material", `{"PublicJwk":`+string(pub)+`,"Use":"sig","Description":"old"}`)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	long := strings.Repeat("y", 501)
	status, doc := postForm(t, c, env.URL+"/organisations/"+oid+"/key-material/"+km["KeyMaterialID"].(string),
		url.Values{"Status": {"Active"}, "Use": {"enc"}, "Description": {long}})
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d", status)
	}
	in := doc.Find("#f-Description")
	if v, _ := in.Attr("aria-invalid"); v != "true" || doc.Find("#e-Description").Text() == "" {
		t.Errorf("no message beside the description (%q)", doc.Find("[data-testid=key-error]").Text())
	}
	if v, _ := in.Attr("value"); v != long {
		t.Errorf("the description shows %.20q, not what was typed", v)
	}
	if v, _ := doc.Find("#f-Use option[selected]").Attr("value"); v != "enc" {
		t.Errorf("Use shows %q, not what was chosen", v)
	}
}

// TestKeyMaterialPutTakesItsKeyAsReadInAnyLayout: a PUT that sends the
// key material's PublicJwk back as read, but laid out by another JSON
// library (spaces, another member order), changes the Description; only
// another key is refused ("the key cannot change").
func TestKeyMaterialPutTakesItsKeyAsReadInAnyLayout(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("Layout"))["OrganisationId"].(string)
	k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &k.PublicKey})
	path := "/organisations/" + oid + "/key-material/" + a.must(201, "POST", "/organisations/"+oid+"/key-material", `{"PublicJwk":`+string(pub)+`,"Use":"sig"}`)["KeyMaterialID"].(string)
	jwk := a.must(200, "GET", path, "")["PublicJwk"].(map[string]any)
	var spaced strings.Builder
	spaced.WriteString("{ ")
	for _, m := range []string{"y", "x", "use", "kty", "kid", "crv"} { // another order
		if v, ok := jwk[m]; ok {
			if spaced.Len() > 2 {
				spaced.WriteString(" , ")
			}
			spaced.WriteString(`"` + m + `" : "` + v.(string) + `"`)
		}
	}
	spaced.WriteString(" }")
	if r, m := a.do("PUT", path, `{"PublicJwk": `+spaced.String()+`, "Use":"sig", "Description":"renamed", "Status":"Active"}`); r.StatusCode != 200 || m["Description"] != "renamed" {
		t.Fatalf("PUT with the key as read, laid out otherwise: %d %v", r.StatusCode, m)
	}
	other, _ := json.Marshal(jose.JSONWebKey{Key: &webtest.Key(t, "p256").(*ecdsa.PrivateKey).PublicKey})
	if r, m := a.do("PUT", path, `{"PublicJwk":`+string(other)+`,"Use":"sig","Status":"Active"}`); r.StatusCode != 422 || fieldsOf(m)["PublicJwk"] == "" {
		t.Fatalf("PUT with another key: %d %v, want 422", r.StatusCode, m)
	}
}

// TestKeyMaterialPEMProblemsNamePEM: a refused PEM is named as the member
// the client sent, PEM, not PublicJwk, on a create and on an update.
func TestKeyMaterialPEMProblemsNamePEM(t *testing.T) {
	env := webtest.Start(t, nil)
	a := newAPI(t, env, "admin@example.com")
	oid := a.must(201, "POST", "/organisations", org("PemField"))["OrganisationId"].(string)
	base := "/organisations/" + oid + "/key-material"
	for _, pemText := range []string{"not pem", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\nhello"} {
		body, _ := json.Marshal(map[string]string{"PEM": pemText, "Use": "sig"})
		if r, m := a.do("POST", base, string(body)); r.StatusCode != 422 || fieldsOf(m)["PEM"] == "" {
			t.Errorf("create with PEM %q: %d %v, want 422 naming PEM", pemText, r.StatusCode, m)
		}
	}
	k := webtest.Key(t, "p256").(*ecdsa.PrivateKey)
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &k.PublicKey})
	path := base + "/" + a.must(201, "POST", base, `{"PublicJwk":`+string(pub)+`,"Use":"sig"}`)["KeyMaterialID"].(string)
	if r, m := a.do("PUT", path, `{"PEM":"x","Use":"sig","Status":"Active"}`); r.StatusCode != 422 || fieldsOf(m)["PEM"] == "" {
		t.Errorf("update with a PEM: %d %v, want 422 naming PEM", r.StatusCode, m)
	}
}

// TestKeyMaterialHugeRSAKeyRefused: key material of an RSA key over 8192
// bits is refused (422, nothing made). As a JWK the JOSE library refused
// it already; as PEM it was taken, and published in the keystores, where
// each relying party checking a signature under it pays seconds of CPU.
func TestKeyMaterialHugeRSAKeyRefused(t *testing.T) {
	env := webtest.Start(t, nil)
	su := newAPI(t, env, "admin@example.com")
	orgID, appID := setupApp(t, su)
	n := new(big.Int).SetBytes(bytes.Repeat([]byte{0xff}, 1<<15)) // 262,144 bits
	der, err := x509.MarshalPKIXPublicKey(&rsa.PublicKey{N: n, E: 65537})
	if err != nil {
		t.Fatal(err)
	}
	pemText := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	resp, m := su.do("POST", "/organisations/"+orgID+"/key-material", mustMarshal(map[string]string{"PEM": pemText, "Use": "sig", "SoftwareStatementId": appID}))
	if resp.StatusCode != 422 || !strings.Contains(mustMarshal(m), "8192") {
		t.Fatalf("an RSA key of 262,144 bits: %d %.300v, want 422 naming the 8192-bit bound", resp.StatusCode, m)
	}
	if l := su.must(200, "GET", "/organisations/"+orgID+"/key-material", "")["list"].([]any); len(l) != 0 {
		t.Fatalf("key material was made: %d", len(l))
	}
}
