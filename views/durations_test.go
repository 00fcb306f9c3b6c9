package views

import (
	"testing"
	"time"
)

func TestExpiresIn(t *testing.T) {
	for d, want := range map[time.Duration]string{
		24 * time.Hour:                    "expires in 1 day",
		90 * time.Minute:                  "expires in 1 hour 30 minutes",
		48*time.Hour + 30*time.Minute:     "expires in 2 days",
		time.Minute:                       "expires in 1 minute",
		40 * time.Second:                  "expires in 40 seconds",
		-(5*time.Minute + 10*time.Second): "expired 5 minutes ago",
	} {
		if got := expiresIn(d); got != want {
			t.Errorf("%v: %q, want %q", d, got, want)
		}
	}
}
