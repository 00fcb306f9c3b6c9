package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCLIFollowChanges: `trustframe api --follow /changes` prints each
// change made after it started as one JSON line, in order, as it comes,
// and stops cleanly when interrupted; a bad cursor ends it with exit 1.
func TestCLIFollowChanges(t *testing.T) {
	base, _ := startProgram(t)
	cfg := filepath.Join(t.TempDir(), "cfg")
	cliLogin(t, base, cfg, "admin@example.com")
	ctx, cancel := context.WithCancel(context.Background())
	var out lockedBuffer
	var errb bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"api", "--config-dir", cfg, "--follow", "/changes"}, func(string) string { return "" }, strings.NewReader(""), &out, &errb)
	}()
	time.Sleep(500 * time.Millisecond) // the follower has read the head
	for _, e := range []string{"f1", "f2", "f3"} {
		if _, stderr, err := cliAPI(t, cfg, "POST", "/users/super", "--data", `{"Email":"`+e+`@example.com","Status":"Active"}`); err != nil {
			t.Fatalf("%v %s", err, stderr)
		}
	}
	deadline := time.Now().Add(15 * time.Second)
	for strings.Count(out.String(), "\n") < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("followed: %q", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("follow ended with %v (%s)", err, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("follow did not stop when interrupted")
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("lines: %q", lines)
	}
	for i, l := range lines {
		var c struct{ Cursor, Action, SubjectType, SubjectId string }
		if err := json.Unmarshal([]byte(l), &c); err != nil || c.SubjectType != "SuperUser" || c.Action != "create" || c.SubjectId != []string{"f1", "f2", "f3"}[i]+"@example.com" || c.Cursor == "" {
			t.Fatalf("line %d: %s (%v)", i, l, err)
		}
	}
	if _, _, err := cliAPI(t, cfg, "--follow", "/changes?after=nonsense"); exitCode(err) != 1 {
		t.Fatalf("a bad cursor: %v", err)
	}
}
