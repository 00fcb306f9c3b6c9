package federation

import (
	"bytes"
	"encoding/json"
	"fmt"

	jose "github.com/go-jose/go-jose/v4"
)

// readAlgs are the algorithms a statement read for people may be signed with.
var readAlgs = []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.ES512, jose.PS256, jose.PS384, jose.PS512, jose.RS256, jose.RS384, jose.RS512, jose.EdDSA}

// Decoded is a signed statement taken apart for reading (the console's
// page of the directory's own entity configuration): its header, its
// claims, the keys its jwks publishes, and whether the one the header's
// kid names verifies it.
type Decoded struct {
	Alg, Kid, Typ string
	Claims        map[string]any
	JSON          string // the claims, indented
	Keys          []jose.JSONWebKey
	// Unverified says why the signature is not verified, for people; ""
	// when it is.
	Unverified string
}

// Decode takes the compact statement tok apart. A token that is not a
// JWS of JSON claims is an error; a signature that does not verify is
// said in Unverified, not hidden.
func Decode(tok string) (*Decoded, error) {
	jws, err := jose.ParseSignedCompact(tok, readAlgs)
	if err != nil || len(jws.Signatures) != 1 {
		return nil, fmt.Errorf("federation: the statement is not a JWS: %v", err)
	}
	hdr := jws.Signatures[0].Header
	d := &Decoded{Alg: hdr.Algorithm, Kid: hdr.KeyID}
	d.Typ, _ = hdr.ExtraHeaders[jose.HeaderType].(string)
	payload := jws.UnsafePayloadWithoutVerification()
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, payload, "", "  "); err != nil {
		return nil, fmt.Errorf("federation: the statement's claims are not JSON: %w", err)
	}
	d.JSON = pretty.String()
	if err := json.Unmarshal(payload, &d.Claims); err != nil {
		return nil, fmt.Errorf("federation: the statement's claims are not an object: %w", err)
	}
	var set jose.JSONWebKeySet
	kb, _ := json.Marshal(d.Claims["jwks"])
	if err := json.Unmarshal(kb, &set); err != nil {
		d.Unverified = "The jwks claim is not a key set: " + err.Error()
	}
	d.Keys = set.Keys
	switch {
	case d.Unverified != "":
	case d.Kid == "":
		d.Unverified = "The header has no kid: no published key can be chosen to verify it."
	case len(set.Key(d.Kid)) == 0:
		d.Unverified = "The published jwks has no key with kid " + d.Kid + "."
	case !verifies(jws, set, d.Kid):
		d.Unverified = "The signature does not verify with the published key " + d.Kid + "."
	}
	return d, nil
}

// verifies reports whether a key kid of set verifies jws.
func verifies(jws *jose.JSONWebSignature, set jose.JSONWebKeySet, kid string) bool {
	for _, k := range set.Key(kid) {
		if _, err := jws.Verify(k); err == nil {
			return true
		}
	}
	return false
}

// KeyType is the JWK kty, with the curve of an EC or OKP key ("EC P-256").
func KeyType(k jose.JSONWebKey) string {
	b, err := k.MarshalJSON()
	if err != nil {
		return ""
	}
	var m struct{ Kty, Crv string }
	_ = json.Unmarshal(b, &m)
	if m.Crv != "" {
		return m.Kty + " " + m.Crv
	}
	return m.Kty
}
