package views

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// ShowSSA puts a signed SSA on the application page: the token, the
// algorithm chosen (algs are those offered), and what the token itself
// says, so that the page shows what was signed rather than what was asked.
// refused, when not "", says why none was signed.
func (p *AppDetailPage) ShowSSA(algs []string, alg, token, refused string) {
	p.Algs, p.SSA, p.SSAAlg, p.SSAError = algs, token, alg, refused
	p.SSARoles = rolesInToken(token)
	p.SSAHeader, p.SSAClaims = readableToken(token)
}

// tokenPart decodes part i (0 header, 1 claims) of a compact JWS; nil
// when token is not one.
func tokenPart(token string, i int) []byte {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[i])
	if err != nil {
		return nil
	}
	return raw
}

// readableToken is what a signed token says, for people: its header and
// its claims as indented JSON ("" when the token is not a JWS of JSON).
func readableToken(token string) (header, claims string) {
	indent := func(raw []byte) string {
		var out bytes.Buffer
		if raw == nil || json.Indent(&out, raw, "", "  ") != nil {
			return ""
		}
		return out.String()
	}
	return indent(tokenPart(token, 0)), indent(tokenPart(token, 1))
}

// rolesInToken reads software_roles from a signed SSA.
func rolesInToken(token string) []string {
	var c struct {
		Roles []string `json:"software_roles"`
	}
	if json.Unmarshal(tokenPart(token, 1), &c) != nil {
		return nil
	}
	return c.Roles
}
