package directory_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/ssa"
	"github.com/trustframe/trustframe/ssa/keyring"
	"github.com/trustframe/trustframe/store"
)

// keysTurningStore is the store as a server sees it while the signing keys
// are changed beside it at every moment: before each SSA's record, the key
// that signed the SSA is replaced and retired (what `trustframe keys
// rotate` then `retire`, run in another process, would do).
type keysTurningStore struct {
	*store.DB
	keys    *keyring.Keyring
	records int
}

func (s *keysTurningStore) RecordSSA(ctx context.Context, a store.Audit, orgID, appID, alg, kid, jti string) error {
	s.records++
	cli := store.Audit{Actor: "cli@example.com"}
	if _, err := s.keys.Rotate(ctx, cli, alg); err != nil {
		return err
	}
	if err := s.DB.RetireSigningKey(ctx, cli, kid, func(string) bool { return true }); err != nil {
		return err
	}
	return s.DB.RecordSSA(ctx, a, orgID, appID, alg, kid, jti)
}

// TestSSAKeysRetiredAtEveryAttemptIsBusy: a refused record (the key retired
// after the server read it) makes the use case sign again with the current
// key; when that happens three times in a row it gives up with a 503 that
// says to try again (a 503 with Retry-After: handlers/errors_test.go), hands out no SSA and leaves no record of one.
func TestSSAKeysRetiredAtEveryAttemptIsBusy(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	kek, err := keyring.LoadOrCreateKEK(filepath.Join(t.TempDir(), "kek.key"))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := keyring.OpenKeyring(ctx, db, kek, []string{ssa.PS256}, 2048)
	if err != nil {
		t.Fatal(err)
	}
	admin := store.Audit{Actor: "admin@example.com"}
	o, err := db.CreateOrganisation(ctx, admin, store.Organisation{OrganisationName: "Acme", RegistrationNumber: "1", CountryOfRegistration: "GB", Status: lifecycle.Active}, nil)
	if err != nil {
		t.Fatal(err)
	}
	app, err := db.CreateSoftwareStatement(ctx, admin, store.SoftwareStatement{OrganisationID: o.OrganisationID, ClientName: "App", RedirectURI: []string{"https://app.example/cb"}, Status: lifecycle.Active}, nil)
	if err != nil {
		t.Fatal(err)
	}
	turning := &keysTurningStore{DB: db, keys: keys}
	s := &directory.SSAs{Store: turning, Keys: keys, Issuer: "https://directory.example", Now: time.Now}

	token, err := s.Issue(ctx, admin, o, app, ssa.PS256)
	var e *directory.Error
	if token != "" || !errors.As(err, &e) || e.Code != directory.CodeBusy {
		t.Fatalf("after three refused records: token %q, error %v; want none and a busy refusal", token, err)
	}
	if turning.records != 3 {
		t.Fatalf("%d attempts, want 3", turning.records)
	}
	recs, _, err := db.ListAudit(ctx, store.AuditFilter{Action: "ssa_issued", Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 0 {
		t.Fatalf("%d records of SSAs, want none: none was handed out", len(recs))
	}
}
