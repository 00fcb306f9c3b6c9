package handlers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/ssa"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/store/storetest"
)

// keysTurningStore is the store as a server sees it while the signing keys
// are changed beside it at every moment: before each SSA's record, the key
// that signed the SSA is replaced and retired (what `trustframe keys
// rotate` then `retire`, run in another process, would do).
type keysTurningStore struct {
	*store.DB
	keys    *ssa.Keyring
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

// TestKeysRetiredAtEveryAttemptIsA503: a refused record (the key retired
// after the server read it) makes the handler sign again with the current
// key; when that happens three times in a row it gives up with a 503 that
// says to try again, hands out no SSA and leaves no record of one.
func TestKeysRetiredAtEveryAttemptIsA503(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, storetest.Path(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	kek, err := ssa.LoadOrCreateKEK(filepath.Join(t.TempDir(), "kek.key"))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := ssa.OpenKeyring(ctx, db, kek, []string{ssa.PS256}, 2048)
	if err != nil {
		t.Fatal(err)
	}
	admin := store.Audit{Actor: "admin@example.com"}
	o, err := db.CreateOrganisation(ctx, admin, store.Organisation{OrganisationName: "Acme", RegistrationNumber: "1", CountryOfRegistration: "GB", Status: lifecycle.Active})
	if err != nil {
		t.Fatal(err)
	}
	app, err := db.CreateSoftwareStatement(ctx, admin, store.SoftwareStatement{OrganisationID: o.OrganisationID, ClientName: "App", RedirectURI: []string{"https://app.example/cb"}, Status: lifecycle.Active})
	if err != nil {
		t.Fatal(err)
	}
	turning := &keysTurningStore{DB: db, keys: keys}
	h := &SSA{Base: &Base{}, Store: turning, Keys: keys, Issuer: "https://directory.example", Now: time.Now}

	r := httptest.NewRequest("GET", "/api/organisations/"+o.OrganisationID+"/softwarestatements/"+app.SoftwareStatementID+"/assertion", nil)
	token, err := h.sign(r, o, app, ssa.PS256)
	if token != "" || err == nil || AsError(err).Code != CodeBusy.Name {
		t.Fatalf("after three refused records: token %q, error %v; want none and a busy refusal", token, err)
	}
	if turning.records != 3 {
		t.Fatalf("%d attempts, want 3", turning.records)
	}
	rec := httptest.NewRecorder()
	WriteError(rec, r, err)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" {
		t.Fatalf("answer %d, Retry-After %q: want 503 and 1", rec.Code, rec.Header().Get("Retry-After"))
	}
	recs, _, err := db.ListAudit(ctx, store.AuditFilter{Action: "ssa_issued", Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 0 {
		t.Fatalf("%d records of SSAs, want none: none was handed out", len(recs))
	}
}
