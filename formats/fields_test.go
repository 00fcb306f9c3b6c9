package formats

import "testing"

func TestWebAuthnOrigins(t *testing.T) {
	for s, ok := range map[string]bool{
		"https://bank.example":       true,
		"https://bank.example:8443":  true,
		"https://sub.bank.example":   true,
		"http://bank.example":        false,
		"https://bank.example/":      false,
		"https://bank.example/path":  false,
		"https://bank.example?x=1":   false,
		"https://bank.example#f":     false,
		"https://user@bank.example":  false,
		"https://bank.example:0":     false,
		"https://bank.example:70000": false,
		"bank.example":               false,
		"":                           false,
		"https://*.bank.example":     false,
	} {
		if ValidWebAuthnOrigin(s) != ok {
			t.Errorf("%q: want %v", s, ok)
		}
	}
}

func TestRedirectURIs(t *testing.T) {
	for s, ok := range map[string]bool{
		"https://app.example/cb":   true,
		"http://127.0.0.1:8080/cb": true,
		"http://localhost/cb":      true,
		"http://app.example/cb":    false,
		"https://app.example/cb#x": false,
		"app.example/cb":           false,
	} {
		if ValidRedirectURI(s) != ok {
			t.Errorf("%q: want %v", s, ok)
		}
	}
}

func TestValidPort(t *testing.T) {
	for p, ok := range map[string]bool{"1": true, "443": true, "65535": true, "0": false, "65536": false, "99999": false, "": false, "+443": false, "-1": false, "x": false} {
		if ValidPort(p) != ok {
			t.Errorf("%q: want %v", p, ok)
		}
	}
}

func TestLoopbackHost(t *testing.T) {
	for h, ok := range map[string]bool{"localhost": true, "127.0.0.1": true, "127.1.2.3": true, "::1": true, "::ffff:127.0.0.1": true, "example.com": false, "10.0.0.1": false, "localhost.example": false, "": false} {
		if LoopbackHost(h) != ok {
			t.Errorf("%q: want %v", h, ok)
		}
	}
}
