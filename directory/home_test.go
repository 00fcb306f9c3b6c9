package directory_test

import (
	"context"
	"testing"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
)

func TestHomeDashboard(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	mustOrg(t, db, "Acme Bank")
	if _, err := db.CreateOrganisation(ctx, store.Audit{Actor: "admin@example.com"},
		store.Organisation{OrganisationName: "Waiting Ltd", RegistrationNumber: "2", CountryOfRegistration: "GB", Status: "Pending"}, nil); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2030, 1, 2, 15, 0, 0, 0, time.FixedZone("X", 3600))
	home := &directory.Home{Store: db, Now: func() time.Time { return now }}
	d, err := home.Dashboard(ctx, 30, false)
	if err != nil {
		t.Fatal(err)
	}
	if d.Pending != 1 || d.Days != 30 || !d.Today.Equal(now) || d.Today.Location() != time.UTC {
		t.Errorf("dashboard: %+v", d)
	}
	if want := now.Add(30 * 24 * time.Hour).UTC(); !d.Expiring.Before.Equal(want) {
		t.Errorf("horizon %v, want %v", d.Expiring.Before, want)
	}
	if len(d.Recent) != 2 || d.Names.Organisations == nil || d.Paused != nil {
		t.Errorf("recent %d, names %+v, paused %v", len(d.Recent), d.Names, d.Paused)
	}
	if _, err := home.Dashboard(ctx, 0, true); err != nil {
		t.Fatal(err)
	}
}
