package directory_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
)

const entityID = "https://directory.example"

func TestTrustMarkTypeValidate(t *testing.T) {
	role := directory.TrustMarkType{Name: "Payment initiation", Basis: "Role", AuthorisationDomain: "Payments", Role: "PISP"}
	cert := directory.TrustMarkType{Name: "FAPI", Basis: "Certification", CertificationType: "FAPI"}
	for _, tc := range []struct {
		name     string
		base     directory.TrustMarkType
		entityID string
		edit     func(t *directory.TrustMarkType)
		field    string // "" when the type passes
	}{
		{"a complete role type passes", role, entityID, func(*directory.TrustMarkType) {}, ""},
		{"a complete certification type passes", cert, entityID, func(*directory.TrustMarkType) {}, ""},
		{"a name is required", role, entityID, func(t *directory.TrustMarkType) { t.Name = " " }, "Name"},
		{"a name over 100 characters", role, entityID, func(t *directory.TrustMarkType) { t.Name = strings.Repeat("n", 101) }, "Name"},
		{"a description over 500 characters", role, entityID, func(t *directory.TrustMarkType) { t.Description = strings.Repeat("d", 501) }, "Description"},
		{"the type is a URL", role, entityID, func(t *directory.TrustMarkType) { t.TrustMarkType = "pisp" }, "TrustMarkType"},
		{"the type is https", role, entityID, func(t *directory.TrustMarkType) { t.TrustMarkType = "http://directory.example/tm" }, "TrustMarkType"},
		{"http on loopback while the entity ID is loopback http", role, "http://127.0.0.1:8080", func(t *directory.TrustMarkType) { t.TrustMarkType = "http://127.0.0.1:8080/tm" }, ""},
		{"http elsewhere while the entity ID is loopback http", role, "http://127.0.0.1:8080", func(t *directory.TrustMarkType) { t.TrustMarkType = "http://tm.example/tm" }, "TrustMarkType"},
		{"the type has no fragment", role, entityID, func(t *directory.TrustMarkType) { t.TrustMarkType = "https://directory.example/tm#x" }, "TrustMarkType"},
		{"a basis is Role or Certification", role, entityID, func(t *directory.TrustMarkType) { t.Basis = "Flag" }, "Basis"},
		{"a role basis needs a domain", role, entityID, func(t *directory.TrustMarkType) { t.AuthorisationDomain = "" }, "AuthorisationDomain"},
		{"a role basis needs a role", role, entityID, func(t *directory.TrustMarkType) { t.Role = "" }, "Role"},
		{"a role basis names no certification type", role, entityID, func(t *directory.TrustMarkType) { t.CertificationType = "FAPI" }, "CertificationType"},
		{"a certification basis needs a certification type", cert, entityID, func(t *directory.TrustMarkType) { t.CertificationType = "" }, "CertificationType"},
		{"a certification basis names no role", cert, entityID, func(t *directory.TrustMarkType) { t.Role = "PISP" }, "Role"},
		{"a lifetime is a duration", role, entityID, func(t *directory.TrustMarkType) { t.Lifetime = "a day" }, "Lifetime"},
		{"a lifetime of at least a minute", role, entityID, func(t *directory.TrustMarkType) { t.Lifetime = "59s" }, "Lifetime"},
		{"a lifetime of at most 720h", role, entityID, func(t *directory.TrustMarkType) { t.Lifetime = "721h" }, "Lifetime"},
		{"a lifetime of exactly 720h", role, entityID, func(t *directory.TrustMarkType) { t.Lifetime = "720h" }, ""},
		{"a logo is an https URL", role, entityID, func(t *directory.TrustMarkType) { t.LogoURI = "http://logo.example/l.png" }, "LogoUri"},
		{"a ref is a URL", role, entityID, func(t *directory.TrustMarkType) { t.Ref = "see the rulebook" }, "Ref"},
		{"a ref may be http", role, entityID, func(t *directory.TrustMarkType) { t.Ref = "http://rules.example/pisp" }, ""},
		{"a type URL over 2000 characters", role, entityID, func(t *directory.TrustMarkType) {
			t.TrustMarkType = "https://directory.example/" + strings.Repeat("t", directory.MaxURL)
		}, "TrustMarkType"},
		{"a logo URI over 2000 characters", role, entityID, func(t *directory.TrustMarkType) {
			t.LogoURI = "https://logo.example/" + strings.Repeat("l", directory.MaxURL)
		}, "LogoUri"},
		{"a ref over 2000 characters", role, entityID, func(t *directory.TrustMarkType) {
			t.Ref = "https://rules.example/" + strings.Repeat("r", directory.MaxURL)
		}, "Ref"},
		{"a status that is not one", role, entityID, func(t *directory.TrustMarkType) { t.Status = "Pending" }, "Status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tt := tc.base
			tc.edit(&tt)
			got := tt.Validate(true, tc.entityID)
			if tc.field == "" {
				if len(got) != 0 || tt.Status != "Active" {
					t.Fatalf("refused %v, status %q", got, tt.Status)
				}
				return
			}
			if len(got) != 1 || got[tc.field] == "" {
				t.Fatalf("want one message on %s, got %v", tc.field, got)
			}
		})
	}
}

func TestTrustMarkTypeDefaults(t *testing.T) {
	tt := directory.TrustMarkType{Name: "Payment  Initiation", Basis: "Role", AuthorisationDomain: "Payments", Role: "PISP"}
	if f := tt.Validate(true, entityID+"/"); len(f) != 0 {
		t.Fatal(f)
	}
	if tt.TrustMarkType != entityID+"/trust-marks/payment-initiation" || tt.Lifetime != "24h" || tt.Status != "Active" {
		t.Fatalf("defaults: %q %q %q", tt.TrustMarkType, tt.Lifetime, tt.Status)
	}
	// An update keeps a status left out (the store fills it), and gives no
	// URL of its own: the stored one is kept.
	up := directory.TrustMarkType{Name: "X", Basis: "Certification", CertificationType: "FAPI"}
	if f := up.Validate(false, entityID); len(f) != 0 || up.Status != "" || up.TrustMarkType != "" {
		t.Fatalf("update: %v %q %q", f, up.Status, up.TrustMarkType)
	}
}

func TestTrustMarkTypesUseCases(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	s := &directory.TrustMarkTypes{Store: db, EntityID: entityID}
	a := directory.Actor{Actor: "su@example.com"}
	// The Id a client chooses is a lower-case UUID.
	_, err := s.Create(ctx, a, directory.TrustMarkType{ID: "ABC", Name: "FAPI", Basis: "Certification", CertificationType: "FAPI"}, nil)
	if fieldOf(err) != "Id" {
		t.Fatalf("a bad Id: %v", err)
	}
	const id = "0b7e7c2e-2a57-4a44-9a4d-0d1c6f1f4d7a"
	tt, err := s.Create(ctx, a, directory.TrustMarkType{ID: id, Name: "FAPI", Basis: "Certification", CertificationType: "FAPI"}, nil)
	if err != nil || tt.ID != id || tt.TrustMarkType != entityID+"/trust-marks/fapi" {
		t.Fatalf("create: %+v %v", tt, err)
	}
	// The Id cannot change.
	_, err = s.Update(ctx, a, id, directory.TrustMarkType{ID: store.NewID(), Name: "FAPI", Basis: "Certification", CertificationType: "FAPI"}, nil, nil)
	if fieldOf(err) != "Id" {
		t.Fatalf("another Id: %v", err)
	}
	if _, err := s.Get(ctx, store.NewID()); !errors.As(err, new(*directory.Error)) || refusal(err).Code != directory.CodeNotFound {
		t.Fatalf("unknown: %v", err)
	}
	got, list, err := s.Entitled(ctx, id)
	if err != nil || got.ID != id || len(list) != 0 {
		t.Fatalf("entitled: %+v %v", list, err)
	}
}
