package store

import (
	"context"
	"testing"
	"time"
)

// TestClientKeysAreTheApplicationsActiveSigningKeys: the keys that sign
// an application's client assertions (docs/design.md §20) are its Active
// key material with Use sig bound to it and the Active signing
// certificates the directory's CA issued it, within their validity;
// another application's, an unbound key, an enc key and a revoked
// certificate are not.
func TestClientKeysAreTheApplicationsActiveSigningKeys(t *testing.T) {
	d := openInternal(t)
	ctx := context.Background()
	a := Audit{Actor: "admin@example.com"}
	o, err := d.CreateOrganisation(ctx, a, Organisation{OrganisationName: "Acme", RegistrationNumber: "R1", CountryOfRegistration: "GB", Status: "Active"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	app := func(name string) string {
		s, err := d.CreateSoftwareStatement(ctx, a, SoftwareStatement{OrganisationID: o.OrganisationID, ClientName: name, Version: "1", Status: "Active"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s.SoftwareStatementID
	}
	mine, theirs := app("Mine"), app("Theirs")
	km := func(kid, use, appID string) {
		if _, err := d.CreateKeyMaterial(ctx, a, KeyMaterial{OrganisationID: o.OrganisationID, Kid: kid, Use: use, PublicJwk: []byte(`{"kty":"EC"}`), SoftwareStatementID: appID}, nil); err != nil {
			t.Fatal(err)
		}
	}
	km("km-mine", "sig", mine)
	km("km-enc", "enc", mine)
	km("km-theirs", "sig", theirs)
	km("km-unbound", "sig", "")
	now := time.Now()
	cert := func(kid, typ, appID string, notAfter time.Time) {
		if _, err := d.AddCertificate(ctx, a, Certificate{Kid: kid, OrganisationID: o.OrganisationID, OrganisationCertificateType: typ, SubjectDN: "CN=x", IssuerDN: "CN=ca",
			SerialNumber: kid, NotBefore: now.Add(-time.Hour), NotAfter: notAfter, PEM: "x", PublicJwk: []byte(`{"kty":"EC"}`)}); err != nil {
			t.Fatal(err)
		}
		// As the CA records the application it issued for (migration 0036).
		if _, err := d.db.ExecContext(ctx, `UPDATE organisation_certificates SET software_statement_id = ?, issued_by_ca = 1 WHERE kid = ?`, appID, kid); err != nil {
			t.Fatal(err)
		}
	}
	cert("cert-signing", "signing", mine, now.Add(time.Hour))
	cert("cert-expired", "signing", mine, now.Add(-time.Minute))
	cert("cert-transport", "transport", mine, now.Add(time.Hour))
	cert("cert-revoked", "signing", mine, now.Add(time.Hour))
	if err := d.RevokeCertificate(ctx, a, o.OrganisationID, "cert-revoked", "keyCompromise", nil, nil); err != nil {
		t.Fatal(err)
	}
	keys, err := d.ClientKeys(ctx, o.OrganisationID, mine, now)
	if err != nil {
		t.Fatal(err)
	}
	var kids []string
	for _, k := range keys {
		kids = append(kids, k.Kid)
	}
	if len(kids) != 2 || !(kids[0] == "km-mine" && kids[1] == "cert-signing" || kids[1] == "km-mine" && kids[0] == "cert-signing") {
		t.Fatalf("the application's signing keys: %v, want km-mine and cert-signing", kids)
	}
}
