package store

import (
	"context"
	"testing"
)

// A Super User status update that changes nothing (Status left out, or the
// status the record already has without a group's revocation to take over)
// commits nothing: no write version moves, so no cache is dropped here and
// no other instance is told of a write (docs/design.md §4).
func TestAdministratorStatusUnchangedCommitsNothing(t *testing.T) {
	d := openInternal(t)
	ctx := context.Background()
	a := Audit{Actor: "root@example.com"}
	if _, err := d.CreateSuperUser(ctx, a, "root@example.com", "Active"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.CreateSuperUser(ctx, a, "sue@example.com", "Active"); err != nil {
		t.Fatal(err)
	}
	for _, status := range []string{"", "Active"} {
		before := d.WriteVersion()
		u, err := d.SetSuperUserStatus(ctx, a, "sue@example.com", status, nil)
		if err != nil || u.Status != "Active" {
			t.Fatalf("status %q: %v %+v", status, err, u)
		}
		if d.WriteVersion() != before {
			t.Fatalf("status %q changed nothing but committed a write", status)
		}
	}
}
