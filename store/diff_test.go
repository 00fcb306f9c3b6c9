package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
)

// TestAuditSeesAnOptionalMemberCleared: optional members are left out of
// JSON when empty (docs/decisions.md), and clearing one is still a change
// in the audit record.
func TestAuditSeesAnOptionalMemberCleared(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, storetest.Path(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a := store.Audit{Actor: "admin@example.com"}
	if _, err := db.CreateRef(ctx, store.DocumentTypes, a, store.ReferenceItem{Name: "Diff licence", Status: "Active"}); err != nil {
		t.Fatal(err)
	}
	o, err := db.CreateOrganisation(ctx, a, store.Organisation{OrganisationName: "Diff Bank", RegistrationNumber: "1", CountryOfRegistration: "GB", Status: "Active"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := db.SaveDocument(ctx, a, store.Document{OrganisationID: o.OrganisationID, DocumentType: "Diff licence", DocumentExpiryDate: "2030-01-01"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	d.DocumentExpiryDate = ""
	if _, err := db.SaveDocument(ctx, a, d, nil, nil); err != nil {
		t.Fatal(err)
	}
	recs, _, err := db.ListAudit(ctx, store.AuditFilter{SubjectID: d.DocumentID, Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Action == "update" {
			if !strings.Contains(r.Summary, "DocumentExpiryDate: 2030-01-01 -> (none)") {
				t.Fatalf("the cleared date is not in the audit summary: %q", r.Summary)
			}
			return
		}
	}
	t.Fatalf("no update record: %+v", recs)
}
