package directory_test

import (
	"context"
	"testing"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/store"
)

// The holders of certifications are an organisation's applications, then
// its authorisation servers; each is found by the URL's id, and one of
// another organisation is not found, named by its kind.
func TestDocumentsCertificationSubjects(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	a := store.Audit{Actor: "admin@example.com"}
	orgID, other := mustOrg(t, db, "Holder Bank"), mustOrg(t, db, "Other Bank")
	app, err := db.CreateSoftwareStatement(ctx, a, store.SoftwareStatement{OrganisationID: orgID, ClientName: "App", RedirectURI: []string{"https://app.example/cb"}, Status: lifecycle.Active}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := db.CreateAuthorisationServer(ctx, a, store.AuthorisationServer{OrganisationID: orgID, CustomerFriendlyName: "Server",
		OpenIDDiscoveryDocument: "https://as.example/.well-known/openid-configuration", Status: lifecycle.Active}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &directory.Documents{Store: db}
	holders, err := s.Holders(ctx, orgID)
	want := []directory.CertificationSubject{{Type: "SoftwareStatement", ID: app.SoftwareStatementID, Name: "App"},
		{Type: "AuthorisationServer", ID: srv.AuthorisationServerID, Name: "Server"}}
	if err != nil || len(holders) != 2 || holders[0] != want[0] || holders[1] != want[1] {
		t.Fatalf("holders: %+v %v", holders, err)
	}
	if got, err := s.Subject(ctx, orgID, app.SoftwareStatementID, ""); err != nil || got != want[0] {
		t.Fatalf("application: %+v %v", got, err)
	}
	if got, err := s.Subject(ctx, orgID, "", srv.AuthorisationServerID); err != nil || got != want[1] {
		t.Fatalf("server: %+v %v", got, err)
	}
	if _, err := s.Subject(ctx, other, app.SoftwareStatementID, ""); refusal(err) == nil || refusal(err).Message != "Application not found" {
		t.Fatalf("another organisation's application: %v", err)
	}
	if _, err := s.Subject(ctx, other, "", srv.AuthorisationServerID); refusal(err) == nil || refusal(err).Message != "Authorisation server not found" {
		t.Fatalf("another organisation's server: %v", err)
	}
}

// A type is a choice when it is Active.
func TestDocumentsActiveIn(t *testing.T) {
	types := []directory.ReferenceItem{{Name: "Licence", Status: "Active"}, {Name: "Old", Status: "Inactive"}}
	if !directory.ActiveIn(types, "Licence") || directory.ActiveIn(types, "Old") || directory.ActiveIn(types, "licence") {
		t.Fatal("ActiveIn")
	}
}
