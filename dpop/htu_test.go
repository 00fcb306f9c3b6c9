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

// TestHTUDotSegmentsAreKept: dot segments are compared as they are, on
// either side (docs/decisions.md: the router does not remove them, so the
// request "/api/x/../users/super" is not routed as "/api/users/super", and a
// proof made for one is not a proof for the other).
func TestHTUDotSegmentsAreKept(t *testing.T) {
	for i, tc := range []struct{ htu, url string }{
		{"https://tf.example/api/x/../users/super", targetURL},
		{targetURL, "https://tf.example/api/x/../users/super"},
	} {
		h, c := goodParts()
		c["htu"], c["jti"] = tc.htu, "jti-dot"+string(rune('a'+i))
		req := request()
		req.URL = tc.url
		_, err := checker().Check([]string{build(t, h, c, ecKey)}, req)
		var de *Error
		if !errors.As(err, &de) || de.Rule != RuleHTU {
			t.Errorf("htu %s, request %s: %v, want %s", tc.htu, tc.url, err, RuleHTU)
		}
	}
	h, c := goodParts()
	c["htu"] = "https://tf.example/api/x/../users/super"
	req := request()
	req.URL = c["htu"].(string)
	if _, err := checker().Check([]string{build(t, h, c, ecKey)}, req); err != nil {
		t.Errorf("the same dotted path on both sides: %v", err)
	}
}

// TestHTUWithUserInfoIsRefused: the request URI a server compares htu with
// has no user information, and normalisation keeps it (RFC 3986 §6.2.2), so
// an htu carrying one ("https://someone@tf.example/…") is another URI.
func TestHTUWithUserInfoIsRefused(t *testing.T) {
	for _, htu := range []string{"https://someone@tf.example/api/users/super", "https://a:b@tf.example/api/users/super", "https://@tf.example/api/users/super"} {
		h, c := goodParts()
		c["htu"] = htu
		_, err := checker().Check([]string{build(t, h, c, ecKey)}, request())
		var de *Error
		if !errors.As(err, &de) || de.Rule != RuleHTU {
			t.Errorf("htu %s: %v, want %s", htu, err, RuleHTU)
		}
	}
}
