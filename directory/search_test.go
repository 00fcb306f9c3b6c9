package directory_test

import (
	"context"
	"testing"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/store"
)

func TestOrganisationListFindsAnExactIdentifierForTheConsole(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	id := mustOrg(t, db, "Acme Bank")
	list := &directory.OrganisationList{Store: db}

	got, err := list.List(ctx, directory.OrgFilter{Q: id}, true)
	if err != nil {
		t.Fatal(err)
	}
	if got.Found == nil || got.Found.What != directory.FoundOrganisation || got.Found.ID != id || got.Items != nil {
		t.Fatalf("want the organisation found, got %+v", got)
	}
	api, err := list.List(ctx, directory.OrgFilter{Q: "Acme"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if api.Found != nil || api.Total != 1 || api.Flags != nil || api.Held != nil {
		t.Fatalf("the API lists and reads nothing more: %+v", api)
	}
}

func TestOrganisationListShowsStatusesInTheDeploymentsWords(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	if _, err := db.CreateOrganisation(ctx, store.Audit{Actor: "admin@example.com"},
		store.Organisation{OrganisationName: "Gone Ltd", RegistrationNumber: "2", CountryOfRegistration: "GB", Status: lifecycle.Withdrawn}, nil); err != nil {
		t.Fatal(err)
	}
	list := &directory.OrganisationList{Store: db, Vocab: lifecycle.VocabInactive}
	got, err := list.List(ctx, directory.OrgFilter{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != 1 || got.Items[0].Status != "Inactive" || got.Held == nil {
		t.Fatalf("page: %+v", got)
	}
	var rows [][]string
	if err := list.Export(ctx, directory.OrgFilter{}, func(r []string) error { rows = append(rows, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0][9] != "Inactive" {
		t.Fatalf("rows: %q", rows)
	}
}

func TestOrganisationListRoleFilterNamesWhatIsNotThere(t *testing.T) {
	list := &directory.OrganisationList{Store: mustOpen(t)}
	if fe, err := list.RoleFilter(context.Background(), "", ""); fe != nil || err != nil {
		t.Fatalf("no filter: %v %v", fe, err)
	}
	fe, err := list.RoleFilter(context.Background(), "Nowhere", "")
	if err != nil || fe == nil || fe.Field != "AuthorisationDomain" {
		t.Fatalf("got %v %v", fe, err)
	}
}
