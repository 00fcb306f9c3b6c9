package web_test

import (
	"crypto/ecdsa"
	"encoding/json"
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
