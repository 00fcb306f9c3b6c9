package dpop

import (
	"errors"
	"testing"
)

// TestHTUIgnoresQueryAndFragment: RFC 9449 §4.3 (9) compares htu with the
// request URI "ignoring any query and fragment parts": a proof whose htu
// carries a query or a fragment still matches (the OpenID Foundation's
// FAPI 2 DPoP tests expect it to), and a query on the request is ignored too.
func TestHTUIgnoresQueryAndFragment(t *testing.T) {
	for i, htu := range []string{targetURL + "?page=1", targetURL + "#x", targetURL + "?page=1#x", targetURL + "?"} {
		h, c := goodParts()
		c["htu"], c["jti"] = htu, "jti-q"+string(rune('a'+i))
		if _, err := checker().Check([]string{build(t, h, c, ecKey)}, request()); err != nil {
			t.Errorf("htu %s: %v", htu, err)
		}
	}
	h, c := goodParts()
	req := request()
	req.URL = targetURL + "?page=2"
	if _, err := checker().Check([]string{build(t, h, c, ecKey)}, req); err != nil {
		t.Errorf("request with a query: %v", err)
	}
	// The path still has to match.
	h, c = goodParts()
	c["htu"] = "https://tf.example/api/users?x=/super"
	_, err := checker().Check([]string{build(t, h, c, ecKey)}, request())
	var de *Error
	if !errors.As(err, &de) || de.Rule != RuleHTU {
		t.Fatalf("another path with a query: %v", err)
	}
}

// TestHTUSyntaxNormalisation: RFC 9449 §4.3 says servers SHOULD apply the
// syntax-based normalisation of RFC 3986 §6.2.2 before comparing htu:
// percent-encoding hex digits in either case and percent-encoded unreserved
// characters name the same URI; other escapes are not decoded.
func TestHTUSyntaxNormalisation(t *testing.T) {
	for _, tc := range []struct{ htu, url string }{
		{"https://tf.example/api/users/%73uper", targetURL},
		{targetURL, "https://tf.example/api/users/%73uper"},
		{"https://tf.example/api/a%2fb", "https://tf.example/api/a%2Fb"},
		{"https://tf.example/api/%7Euser", "https://tf.example/api/~user"},
	} {
		h, c := goodParts()
		c["htu"] = tc.htu
		req := request()
		req.URL = tc.url
		if _, err := checker().Check([]string{build(t, h, c, ecKey)}, req); err != nil {
			t.Errorf("htu %s, request %s: %v", tc.htu, tc.url, err)
		}
	}
	// An escaped slash is not a slash: another path.
	h, c := goodParts()
	c["htu"] = "https://tf.example/api/users%2Fsuper"
	_, err := checker().Check([]string{build(t, h, c, ecKey)}, request())
	var de *Error
	if !errors.As(err, &de) || de.Rule != RuleHTU {
		t.Fatalf("%%2F taken for /: %v", err)
	}
}
