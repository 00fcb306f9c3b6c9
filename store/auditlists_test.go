package store

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/store/storetest"
)

// auditTruth reads a list the slow way, from the records themselves.
func auditTruth(t *testing.T, d *DB, col, where string, args ...any) []string {
	t.Helper()
	out, err := queryList(context.Background(), d.db, scanString,
		`SELECT DISTINCT `+col+` FROM audit_log `+where+` ORDER BY `+col, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkAuditLists compares the audit filter lists with what the records
// hold: every subject type, every action, every subject type's actions,
// each sorted byte by byte (as Go sorts; "Zebra" before "aardvark").
func checkAuditLists(t *testing.T, d *DB) (types, actions []string) {
	t.Helper()
	ctx := context.Background()
	types, err := d.AuditSubjectTypes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	actions, err = d.AuditActions(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	same := func(what string, got, want []string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s: %v, the records hold %v", what, got, want)
		}
		if !sort.StringsAreSorted(got) {
			t.Errorf("%s not sorted: %v", what, got)
		}
	}
	same("subject types", types, auditTruth(t, d, "subject_type", ""))
	same("actions", actions, auditTruth(t, d, "action", ""))
	for _, st := range types {
		got, err := d.AuditActions(ctx, st, "")
		if err != nil {
			t.Fatal(err)
		}
		same(st+"'s actions", got, auditTruth(t, d, "action", "WHERE subject_type = ?", st))
	}
	return types, actions
}

// A record's subject type and action are in the filter lists as soon as
// it is written, whichever way it was written: through group commit
// (RecordEvent), with the change it records (CreateSuperUser), or by SQL
// of its own.
func TestAuditFilterListsFollowTheLog(t *testing.T) {
	d := openInternal(t)
	ctx := context.Background()
	types, actions := checkAuditLists(t, d)
	if slices.Contains(types, "Zebra") || slices.Contains(actions, "zeta_event") {
		t.Fatalf("a new log lists values not written yet: %v %v", types, actions)
	}
	for _, r := range []AuditRecord{
		{Actor: "t", Action: "zeta_event", SubjectType: "Zebra", SubjectID: "z1"},
		{Actor: "t", Action: "Alpha", SubjectType: "aardvark", SubjectID: "a1"},
		{Actor: "t", Action: "zeta_event", SubjectType: "Zebra", SubjectID: "z2"}, // a pair seen before
		{Actor: "t", Action: "Alpha", SubjectType: "Zebra", SubjectID: "z1"},
	} {
		if err := d.RecordEvent(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.CreateSuperUser(ctx, Audit{Actor: "t"}, "new@example.com", "Active"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.db.ExecContext(ctx, auditInsert, d.stamp(), "t", "by_hand", "Handmade", "h1", "", "", "", ""); err != nil {
		t.Fatal(err)
	}
	types, actions = checkAuditLists(t, d)
	for _, want := range []string{"Zebra", "aardvark", "SuperUser", "Handmade"} {
		if !slices.Contains(types, want) {
			t.Errorf("subject types %v lack %q", types, want)
		}
	}
	for _, want := range []string{"zeta_event", "Alpha", "create", "by_hand"} {
		if !slices.Contains(actions, want) {
			t.Errorf("actions %v lack %q", actions, want)
		}
	}
	if i, j := slices.Index(types, "Zebra"), slices.Index(types, "aardvark"); i > j {
		t.Errorf("subject types not in byte order: %v", types)
	}
	if got, _ := d.AuditActions(ctx, "Zebra", ""); !slices.Equal(got, []string{"Alpha", "zeta_event"}) {
		t.Errorf("Zebra's actions %v, want [Alpha zeta_event]", got)
	}
	if got, _ := d.AuditActions(ctx, "Zebra", "z2"); !slices.Equal(got, []string{"zeta_event"}) {
		t.Errorf("Zebra z2's actions %v, want [zeta_event]", got)
	}
	if got, _ := d.AuditActions(ctx, "Nothing", ""); len(got) != 0 {
		t.Errorf("a subject type never written has actions %v", got)
	}
	// A record in a transaction that rolls back leaves no value behind.
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.writeAudit(ctx, tx, AuditRecord{Actor: "t", Action: "undone", SubjectType: "Ghost", SubjectID: "g"}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	types, actions = checkAuditLists(t, d)
	if slices.Contains(types, "Ghost") || slices.Contains(actions, "undone") {
		t.Errorf("a rolled-back record's values are listed: %v %v", types, actions)
	}
}

// Records written before migration 0028 are listed once it has run: the
// test takes a database back to the schema before it (no audit_actions,
// no trigger, 0028 not applied), writes records there, and opens it again.
func TestAuditFilterListsFilledByMigration(t *testing.T) {
	ctx := context.Background()
	path := storetest.Path(t)
	d, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	undo := []string{`DROP TRIGGER audit_log_actions`, `DROP TABLE audit_actions`}
	if d.Engine() == Postgres {
		undo = []string{`DROP TRIGGER audit_log_actions ON audit_log`, `DROP FUNCTION audit_log_actions()`, `DROP TABLE audit_actions`}
	}
	undo = append(undo, `DELETE FROM schema_migrations WHERE version = 28`)
	for _, q := range undo {
		if _, err := d.db.ExecContext(ctx, q); err != nil {
			d.Close()
			t.Fatal(q, err)
		}
	}
	for _, r := range []AuditRecord{
		{Actor: "t", Action: "old_action", SubjectType: "Legacy", SubjectID: "l1"},
		{Actor: "t", Action: "older_action", SubjectType: "Legacy", SubjectID: "l2"},
		{Actor: "t", Action: "old_action", SubjectType: "Ancient", SubjectID: "a1"},
	} {
		if err := d.RecordEvent(ctx, r); err != nil {
			d.Close()
			t.Fatal(err)
		}
	}
	if _, err := d.AuditSubjectTypes(ctx); err == nil {
		d.Close()
		t.Fatal("the subject types were read without audit_actions: the test did not undo 0028")
	}
	d.Close()

	d, err = Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	applied, _ := d.Migrations(ctx)
	if !slices.Contains(applied, "0028_audit_actions.sql") {
		t.Fatalf("0028 not applied again: %v", applied)
	}
	types, actions := checkAuditLists(t, d)
	for _, want := range []string{"Ancient", "Legacy"} {
		if !slices.Contains(types, want) {
			t.Errorf("subject types %v lack %q, written before the migration", types, want)
		}
	}
	for _, want := range []string{"old_action", "older_action"} {
		if !slices.Contains(actions, want) {
			t.Errorf("actions %v lack %q, written before the migration", actions, want)
		}
	}
	// And the trigger is in place for what comes next.
	if err := d.RecordEvent(ctx, AuditRecord{Actor: "t", Action: "new_action", SubjectType: "Legacy", SubjectID: "l3"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := d.AuditActions(ctx, "Legacy", ""); !slices.Equal(got, []string{"new_action", "old_action", "older_action"}) {
		t.Errorf("Legacy's actions %v", got)
	}
}

// queryPlan is the engine's plan of q: SQLite's EXPLAIN QUERY PLAN
// details, or PostgreSQL's EXPLAIN lines.
func queryPlan(t *testing.T, d *DB, q string, args ...any) string {
	t.Helper()
	return queryPlanOn(t, d.db, d.Engine(), q, args...)
}

// The audit page's lists (and the certificate audit's, by subject type)
// read audit_actions, not the records; one subject's actions (an
// application's audit page) read that subject's records through the
// audit_subject index, never the whole log.
func TestAuditFilterListsReadNoRecords(t *testing.T) {
	d := openInternal(t)
	ctx := context.Background()
	fillAuditLog(t, d, 20000)
	if d.Engine() == Postgres {
		if _, err := d.db.ExecContext(ctx, `VACUUM ANALYZE audit_log`); err != nil {
			t.Fatal(err)
		}
	}
	for name, q := range map[string]string{
		"actions":                            auditActionsSQL,
		"actions of OrganisationCertificate": auditActionsOfTypeSQL,
		"subject types":                      auditSubjectTypesSQL,
	} {
		var args []any
		if strings.Contains(q, "?") {
			args = []any{"OrganisationCertificate"}
		}
		plan := queryPlan(t, d, q, args...)
		if strings.Contains(plan, "audit_log") || !strings.Contains(plan, "audit_actions") {
			t.Errorf("%s: the plan reads the records, not audit_actions:\n%s", name, plan)
		}
	}
	q, args := auditActionsOfSubjectSQL("Application", "app-7")
	plan := queryPlan(t, d, q, args...)
	want := "SEARCH audit_log USING INDEX audit_subject (subject_type=? AND subject_id=?)"
	if d.Engine() == Postgres {
		want = "Index Cond: ((subject_type = 'Application'::text) AND (subject_id = 'app-7'::text))"
	}
	if !strings.Contains(plan, want) {
		t.Errorf("one subject's actions: the plan does not read its records through audit_subject (want %q):\n%s", want, plan)
	}
	got, err := d.AuditActions(ctx, "Application", "app-7")
	if err != nil || !slices.Equal(got, []string{"ssa_issued"}) {
		t.Errorf("app-7's actions %v, %v", got, err)
	}
}
