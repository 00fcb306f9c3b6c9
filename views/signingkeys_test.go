package views

import (
	"errors"
	"testing"
	"time"

	"github.com/trustframe/trustframe/directory"
)

// TestActivateRefusedSaysWhenTheKeyMaySign: an early start is said with
// the time and the wait; any other refusal as its message.
func TestActivateRefusedSaysWhenTheKeyMaySign(t *testing.T) {
	now := time.Date(2030, 1, 2, 10, 0, 0, 0, time.UTC)
	early := &directory.EarlyActivation{Err: &directory.ConflictError{Message: "too early"}, PublishedAt: now.Add(-90 * time.Minute), From: now.Add(22*time.Hour + 30*time.Minute), Now: now}
	want := "Not started yet: the next key may sign from 2030-01-03 08:30 UTC, in 22 hours 30 minutes. It is published for 1 day first, so that relying parties can add it."
	if got := ActivateRefused(early, "Too early"); got != want {
		t.Errorf("early:\n got %q\nwant %q", got, want)
	}
	if got := ActivateRefused(errors.New("x"), "No next key"); got != "No next key" {
		t.Errorf("other: %q", got)
	}
}
