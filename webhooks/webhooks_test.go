package webhooks

import (
	"context"
	"testing"
)

// TestSignMatchesTheSpecificationsExample checks Sign against the example
// the Standard Webhooks reference libraries are tested with.
func TestSignMatchesTheSpecificationsExample(t *testing.T) {
	key, err := ParseSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		t.Fatal(err)
	}
	got := Sign(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, []byte(`{"test": 2432232314}`))
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
}

func TestSecrets(t *testing.T) {
	s := NewSecret()
	key, err := ParseSecret(s)
	if err != nil || len(key) != 32 {
		t.Fatalf("NewSecret %q: %v (%d bytes)", s, err, len(key))
	}
	if NewSecret() == s {
		t.Fatal("two secrets are the same")
	}
	for _, bad := range []string{"", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_", "whsec_***", "whsec_AAAA"} {
		if _, err := ParseSecret(bad); err == nil {
			t.Errorf("ParseSecret(%q) accepted", bad)
		}
	}
}

func TestCheckURL(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		url          string
		allowPrivate bool
		ok           bool
	}{
		{"https://8.8.8.8/hook", false, true},
		{"https://[2001:4860:4860::8888]/hook", false, true},
		{"http://8.8.8.8/hook", false, false},
		{"https://127.0.0.1/hook", false, false},
		{"https://192.168.1.10/hook", false, false},
		{"https://100.64.0.1/hook", false, false},
		{"https://[::ffff:10.0.0.1]/hook", false, false},
		{"https://[fe80::1]/hook", false, false},
		{"https://localhost/hook", false, false},
		{"https://api.localhost/hook", false, false},
		{"https://intranet/hook", false, false},
		{"https://8.8.8.8/hook#frag", false, false},
		{"https://8.8.8.8:443/hook", false, true},
		{"https://8.8.8.8:65535/hook", false, true},
		{"https://8.8.8.8:0/hook", false, false},
		{"https://8.8.8.8:99999/hook", false, false},
		{"http://127.0.0.1:0/hook", true, false},
		{"http://127.0.0.1:65536/hook", true, false},
		{"https://[2002:7f00:1::]/hook", false, false},
		{"https://[2001::1]/hook", false, false},
		{"https://[fec0::1]/hook", false, false},
		{"https://[::ffff:0:7f00:1]/hook", false, false},
		{"ftp://8.8.8.8/hook", false, false},
		{"/relative", false, false},
		{"http://127.0.0.1:8080/hook", true, true},
		{"ftp://127.0.0.1/hook", true, false},
	} {
		msg := CheckURL(ctx, c.url, c.allowPrivate, nil)
		if (msg == "") != c.ok {
			t.Errorf("CheckURL(%q, %v) = %q", c.url, c.allowPrivate, msg)
		}
	}
}

func TestBackoff(t *testing.T) {
	for n, want := range []string{"5s", "30s", "2m0s", "10m0s", "30m0s", "1h0m0s", "1h0m0s"} {
		if got := Backoff(n + 1).String(); got != want {
			t.Errorf("Backoff(%d) = %s, want %s", n+1, got, want)
		}
	}
}
