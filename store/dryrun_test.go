package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
)

// A write under DryRun runs its checks and changes nothing: one that would
// pass returns ErrDryRun, one refused for a field returns that field, and
// neither leaves a row, an audit record or a cached list behind.
func TestDryRunChangesNothing(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	// The list is cached first, so a change wrongly applied to it shows.
	if _, total, err := db.ListOrganisations(ctx, store.OrgFilter{Size: 10}); err != nil || total != 0 {
		t.Fatalf("list: %d %v", total, err)
	}
	head, _ := db.LastChangeID(ctx)
	org := store.Organisation{OrganisationName: "Acme", RegistrationNumber: "1", CountryOfRegistration: "GB", Status: "Pending"}
	if _, err := db.CreateOrganisation(store.DryRun(ctx), store.Audit{Actor: "t"}, org, nil); !errors.Is(err, store.ErrDryRun) {
		t.Fatalf("a passing write: %v", err)
	}
	org.Flags = []string{"no-such-flag"}
	var de *directory.Error
	if _, err := db.CreateOrganisation(store.DryRun(ctx), store.Audit{Actor: "t"}, org, nil); !errors.As(err, &de) || de.Fields["Flags"] == "" {
		t.Fatalf("a refused write: %v", err)
	}
	if after, _ := db.LastChangeID(ctx); after != head {
		t.Fatalf("audit records written: %d -> %d", head, after)
	}
	if l, total, err := db.ListOrganisations(ctx, store.OrgFilter{Size: 10}); err != nil || total != 0 || len(l) != 0 {
		t.Fatalf("organisations after dry runs: %d %v", total, err)
	}
	// The same write, for real, then passes.
	org.Flags = nil
	if _, err := db.CreateOrganisation(ctx, store.Audit{Actor: "t"}, org, nil); err != nil {
		t.Fatal(err)
	}
	if l, total, _ := db.ListOrganisations(ctx, store.OrgFilter{Size: 10}); total != 1 || len(l) != 1 {
		t.Fatalf("organisations: %d", total)
	}
}

// A record written through the group commit is never rolled back by a
// DryRun context: the batch holds other requests' records too.
func TestDryRunLeavesGroupCommitAlone(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	head, _ := db.LastChangeID(ctx)
	if err := db.RecordEvent(store.DryRun(ctx), store.AuditRecord{Actor: "t", Action: "sign-in", SubjectType: "SuperUser", SubjectID: "t"}); err != nil {
		t.Fatal(err)
	}
	if after, _ := db.LastChangeID(ctx); after == head {
		t.Fatal("the record was rolled back")
	}
}
