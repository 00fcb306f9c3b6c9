package directory_test

import (
	"context"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/directory"
)

func TestAuditLogListReadsNamesAndChoicesOnlyForTheConsole(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	org := mustOrg(t, db, "Acme Bank")
	log := &directory.AuditLog{Store: db}

	api, err := log.List(ctx, directory.AuditFilter{OrganisationID: org}, false)
	if err != nil {
		t.Fatal(err)
	}
	if api.Total == 0 || len(api.Records) == 0 || api.Actions != nil || api.SubjectTypes != nil || api.Names.Subjects != nil {
		t.Fatalf("the API's page: records and total only, got %+v", api)
	}
	page, err := log.List(ctx, directory.AuditFilter{SubjectType: "Organisation", SubjectID: org}, true)
	if err != nil {
		t.Fatal(err)
	}
	if page.Names.Subjects["Organisation/"+org] != "Acme Bank" {
		t.Errorf("names: %+v", page.Names)
	}
	if len(page.Actions) == 0 || len(page.SubjectTypes) == 0 {
		t.Errorf("the console's page has the filters' choices: %+v", page)
	}
	choices, err := log.Choices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if choices.Records != nil || len(choices.Actions) == 0 || len(choices.SubjectTypes) == 0 {
		t.Errorf("choices alone: %+v", choices)
	}
}

func TestAuditLogOfListsTheActionsOfItsSubject(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	org := mustOrg(t, db, "Acme Bank")
	log := &directory.AuditLog{Store: db}
	if err := log.Record(ctx, directory.AuditRecord{Actor: "a@example.com", Action: "export", SubjectType: "AuditLog", SubjectID: "*", Summary: "3 audit records as CSV"}); err != nil {
		t.Fatal(err)
	}
	p, err := log.Of(ctx, directory.AuditFilter{SubjectType: "Organisation", SubjectID: org}, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range p.Actions {
		if a == "export" {
			t.Fatalf("actions of another subject listed: %v", p.Actions)
		}
	}
	if len(p.Actions) == 0 || p.Total != len(p.Records) {
		t.Fatalf("page: %+v", p)
	}
}

func TestAuditLogExportGuardsFormulas(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	log := &directory.AuditLog{Store: db}
	if err := log.Record(ctx, directory.AuditRecord{Actor: "=cmd()", Action: "export", SubjectType: "AuditLog", SubjectID: "*", Summary: "x"}); err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	if err := log.Export(ctx, directory.AuditFilter{SubjectType: "AuditLog"}, func(r []string) error { rows = append(rows, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || len(rows[0]) != len(directory.AuditColumns) || rows[0][2] != "'=cmd()" || !strings.Contains(rows[0][1], "T") {
		t.Fatalf("rows: %q", rows)
	}
}
