package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store"
)

// issuedCert is a certificate as the directory's CA stores one.
func issuedCert(orgID, appID, kid, typ string, notAfter time.Time) store.Certificate {
	return store.Certificate{Kid: kid, OrganisationID: orgID, OrganisationCertificateType: typ, SubjectDN: "CN=x", IssuerDN: "CN=CA", SerialNumber: kid,
		NotBefore: notAfter.Add(-time.Hour), NotAfter: notAfter, PEM: "-", PublicJwk: json.RawMessage(`{"kid":"` + kid + `"}`),
		SoftwareStatementID: appID, IssuedByCA: true}
}

func TestIssuedCertificatesOfAnApplication(t *testing.T) {
	db, ctx, who := open(t), context.Background(), store.Audit{Actor: "admin@example.com"}
	o, err := db.CreateOrganisation(ctx, who, store.Organisation{OrganisationName: "Bank", RegistrationNumber: "1", CountryOfRegistration: "GB", Status: "Active"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	app, err := db.CreateSoftwareStatement(ctx, who, store.SoftwareStatement{OrganisationID: o.OrganisationID, ClientName: "App", Status: "Active"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(24 * time.Hour)
	for _, c := range []store.Certificate{
		issuedCert(o.OrganisationID, app.SoftwareStatementID, "t1", "transport", later),
		issuedCert(o.OrganisationID, app.SoftwareStatementID, "s1", "signing", later),
		issuedCert(o.OrganisationID, app.SoftwareStatementID, "e1", "encryption", time.Now().Add(-time.Minute)), // expired
	} {
		got, err := db.AddCertificate(ctx, who, c)
		if err != nil {
			t.Fatal(err)
		}
		if !got.IssuedByCA || got.SoftwareStatementID != app.SoftwareStatementID {
			t.Fatalf("stored %+v", got)
		}
	}
	l, err := db.ListApplicationCertificates(ctx, o.OrganisationID, app.SoftwareStatementID)
	if err != nil || len(l) != 3 {
		t.Fatalf("list: %d %v", len(l), err)
	}
	keys := func(typs []string, active bool) string {
		k, err := db.ApplicationKeys(ctx, o.OrganisationID, app.SoftwareStatementID, typs, active)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(k)
		return string(b)
	}
	if got := keys([]string{"signing", "encryption"}, true); got != `[{"kid":"s1"}]` {
		t.Errorf("application keystore %s", got)
	}
	if got := keys([]string{"signing", "encryption"}, false); got != `[{"kid":"e1"}]` {
		t.Errorf("inactive application keystore %s", got)
	}
	if got := keys([]string{"transport"}, true); got != `[{"kid":"t1"}]` {
		t.Errorf("transport keystore %s", got)
	}
	if _, err := db.ApplicationKeys(ctx, o.OrganisationID, "nope", []string{"transport"}, true); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown application: %v", err)
	}
	// An application no longer Active is issued nothing, nor one of another organisation.
	app.Status = "Suspended"
	if _, err := db.UpdateSoftwareStatement(ctx, who, app, nil, nil); err != nil {
		t.Fatal(err)
	}
	var conflict *store.ConflictError
	if _, err := db.AddCertificate(ctx, who, issuedCert(o.OrganisationID, app.SoftwareStatementID, "t2", "transport", later)); !errors.As(err, &conflict) {
		t.Errorf("suspended application: %v, want a conflict", err)
	}
	other, _ := db.CreateOrganisation(ctx, who, store.Organisation{OrganisationName: "Other", RegistrationNumber: "2", CountryOfRegistration: "GB", Status: "Active"}, nil)
	if _, err := db.AddCertificate(ctx, who, issuedCert(other.OrganisationID, app.SoftwareStatementID, "t3", "transport", later)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another organisation's application: %v", err)
	}
	if l, _ := db.ListApplicationCertificates(ctx, o.OrganisationID, app.SoftwareStatementID); len(l) != 3 {
		t.Fatalf("refusals stored certificates: %d", len(l))
	}
}
