package store

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/directory"
)

func naiveIDs(t *testing.T, d *DB, f OrgFilter) []string {
	t.Helper()
	col := OrgSortColumns[f.Sort]
	dir := map[bool]string{false: "ASC", true: "DESC"}[f.Desc]
	where, args := orgWhere(f, d.engine)
	rows, err := d.db.Query(`SELECT organisation_id FROM organisations WHERE `+where+` ORDER BY `+col+` `+dir+`, organisation_id `+dir+` LIMIT ? OFFSET ?`,
		append(args, f.Size, f.Page*f.Size)...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		rows.Scan(&id)
		ids = append(ids, id)
	}
	return ids
}

// TestAnchorsFollowWritesWithoutRebuild: after the anchors of a list are
// built, writes (creates, renames, status and flag changes, a batch)
// adjust them in place: every deep page stays equal to a plain OFFSET
// query, and no request finds them missing and no rebuild starts.
func TestAnchorsFollowWritesWithoutRebuild(t *testing.T) {
	d := openInternal(t)
	ctx := context.Background()
	a := Audit{Actor: "t"}
	if err := d.SeedDirectory(ctx, a, 2600, 3); err != nil {
		t.Fatal(err)
	}
	flag, err := d.CreateFlag(ctx, a, Flag{Name: "Sandbox", Type: "Organisation", Status: "Active"})
	if err != nil {
		t.Fatal(err)
	}
	var filters []OrgFilter
	for _, sort := range []string{"OrganisationName", "RegistrationNumber", "Status"} {
		for _, desc := range []bool{false, true} {
			for _, status := range []string{"", "Pending"} {
				filters = append(filters, OrgFilter{Sort: sort, Desc: desc, Status: status, Size: 20})
			}
		}
	}
	filters = append(filters, OrgFilter{Sort: "OrganisationName", Flag: flag.FlagID, Size: 20})
	check := func(step string) {
		t.Helper()
		for _, f := range filters {
			_, total, err := d.ListOrganisations(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			for _, page := range []int{25, 26, 51, total/20 - 1} {
				if page < 0 {
					continue
				}
				f.Page = page
				got, _, err := d.ListOrganisations(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				want := naiveIDs(t, d, f)
				if len(got) != len(want) {
					t.Fatalf("%s: %+v: %d rows, want %d", step, f, len(got), len(want))
				}
				for i := range got {
					if got[i].OrganisationID != want[i] {
						t.Fatalf("%s: %+v: row %d differs", step, f, i)
					}
				}
			}
		}
	}
	check("first pass")
	d.WaitBackground()
	d.lists.mu.Lock()
	built := len(d.lists.anchors)
	d.lists.mu.Unlock()
	if built < len(filters)-1 { // the flag's list is too short for anchors
		t.Fatalf("%d anchor sets built, want %d", built, len(filters)-1)
	}
	check("with anchors")

	noRebuild := func(step string) {
		t.Helper()
		check(step)
		d.lists.mu.Lock()
		defer d.lists.mu.Unlock()
		if len(d.lists.building) != 0 || len(d.lists.anchors) != built {
			t.Fatalf("%s: %d rebuilds started, %d anchor sets kept of %d", step, len(d.lists.building), len(d.lists.anchors), built)
		}
	}
	var ids []string
	for i, name := range []string{"AAA first", "mmm middle", "zzz last", "Mmm Middle", "ÉCLAIR"} {
		o, err := d.CreateOrganisation(ctx, a, Organisation{OrganisationName: name, RegistrationNumber: fmt.Sprint("R", 9-i), CountryOfRegistration: "GB",
			Status: []string{"Active", "Pending"}[i%2], Flags: []string{flag.FlagID}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, o.OrganisationID)
		noRebuild("create " + name)
	}
	o, _ := d.GetOrganisation(ctx, ids[0])
	o.OrganisationName, o.Status = "zzzz renamed", "Pending"
	if _, err := d.UpdateOrganisation(ctx, a, o, nil, nil); err != nil {
		t.Fatal(err)
	}
	noRebuild("rename and status")
	o.Flags = nil
	if _, err := d.UpdateOrganisation(ctx, a, o, nil, nil); err != nil {
		t.Fatal(err)
	}
	noRebuild("flag removed")
	// A deep-page row moves to the front.
	deep, _, _ := d.ListOrganisations(ctx, OrgFilter{Sort: "OrganisationName", Page: 60, Size: 20})
	m := deep[3]
	m.OrganisationName = "000 front"
	if _, err := d.UpdateOrganisation(ctx, a, m, nil, nil); err != nil {
		t.Fatal(err)
	}
	noRebuild("deep row moved")
	if _, err := d.CreateOrganisations(ctx, a, []Organisation{
		{OrganisationName: "Batch one", RegistrationNumber: "B1", CountryOfRegistration: "GB", Status: "Active"},
		{OrganisationName: "batch two", RegistrationNumber: "B2", CountryOfRegistration: "GB", Status: "Pending"},
	}); err != nil {
		t.Fatal(err)
	}
	noRebuild("batch")
	// A failed batch changes nothing.
	if _, err := d.CreateOrganisations(ctx, a, []Organisation{
		{OrganisationName: "Fails", RegistrationNumber: "F1", CountryOfRegistration: "GB", Status: "Active"},
		{OrganisationID: ids[1], OrganisationName: "Dup", RegistrationNumber: "F2", CountryOfRegistration: "GB", Status: "Active"},
	}); err == nil {
		t.Fatal("a duplicate id was accepted")
	}
	noRebuild("failed batch")
}

// TestRefusedClaimKeepsRoleFilterCaches: a claim write that is refused
// (or only a dry run, as a form's reference check is) changed no claim,
// so the role-filtered list caches stay; one that commits drops them.
func TestRefusedClaimKeepsRoleFilterCaches(t *testing.T) {
	d := openInternal(t)
	ctx := context.Background()
	a := Audit{Actor: "t"}
	if err := d.SeedDirectory(ctx, a, 50, 3); err != nil {
		t.Fatal(err)
	}
	var org, authority, domain, role string
	if err := d.db.QueryRow(`SELECT organisation_id, authority_id, domain, role FROM organisation_authority_claims WHERE status = 'Active' LIMIT 1`).Scan(&org, &authority, &domain, &role); err != nil {
		t.Fatal(err)
	}
	other, err := d.CreateOrganisation(ctx, a, Organisation{OrganisationName: "Unclaimed Bank", RegistrationNumber: "U-1", CountryOfRegistration: "GB", Status: "Active"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := OrgFilter{Sort: "OrganisationName", Domain: domain, Role: role, Size: 20}
	if _, _, err := d.ListOrganisations(ctx, f); err != nil {
		t.Fatal(err)
	}
	cachedCount := func() bool { _, ok, _ := d.lists.count(f); return ok }
	if !cachedCount() {
		t.Fatal("the role-filtered count was not cached")
	}
	bad := AuthorityClaim{OrganisationID: org, AuthorityID: authority, AuthorisationDomain: domain, Role: "NoSuchRole", Status: "Active"}
	if _, err := d.CreateAuthorityClaim(ctx, a, bad, nil); err == nil {
		t.Fatal("a claim of an unknown role was accepted")
	}
	if !cachedCount() {
		t.Fatal("a refused claim dropped the role-filtered caches")
	}
	good := AuthorityClaim{OrganisationID: other.OrganisationID, AuthorityID: authority, AuthorisationDomain: domain, Role: role, RegistrationID: "R1", Status: "Active"}
	tooLong := good
	tooLong.RegistrationID = strings.Repeat("9", 41)
	if _, err := d.CreateAuthorityClaim(ctx, a, tooLong, directory.Fields{"RegistrationId": "At most 40 characters."}); err == nil {
		t.Fatal("a claim refused by the layer was written")
	}
	if !cachedCount() {
		t.Fatal("a claim refused by the layer dropped the role-filtered caches")
	}
	if _, err := d.CreateAuthorityClaim(ctx, a, good, nil); err != nil {
		t.Fatal(err)
	}
	if cachedCount() {
		t.Fatal("a committed claim left the role-filtered count in the cache")
	}
}
