package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trustframe/trustframe/store/storetest"
)

// auditMixSubjects are the subject types of the benchmark's log (15), and
// auditMixActions the actions besides ssa_issued (40).
var (
	auditMixSubjects = []string{"Organisation", "Application", "AuthorisationServer", "Contact", "Flag",
		"Document", "Certification", "RoleMetadataPolicy", "KeyMaterial", "Authority", "AuthorityClaim",
		"OrganisationCertificate", "SuperUser", "DataAdministrator", "Webhook"}
	auditMixActions = func() []string {
		a := []string{"create", "update", "delete", "status", "reactivate", "key_create", "key_retire",
			"login", "logout", "login_refused", "export", "upload", "upload_refused", "seed", "rotate_secret",
			"revoke", "redeliver", "pause", "invite", "group_revoke_refused", "expiry_notice",
			"attachment_update", "attach", "activate"}
		for i := len(a); i < 40; i++ {
			a = append(a, fmt.Sprintf("action_%02d", i))
		}
		return a
	}()
)

// sqlCase is a CASE expression picking list[expr % len(list)].
func sqlCase(expr string, list []string) string {
	var b strings.Builder
	b.WriteString("CASE (" + expr + ") % " + strconv.Itoa(len(list)))
	for i, v := range list {
		fmt.Fprintf(&b, " WHEN %d THEN '%s'", i, v)
	}
	b.WriteString(" END")
	return b.String()
}

// BenchmarkAuditFilterLists times the audit page's filter lists (the
// Action and Subject type select boxes, handlers/pages.go) and the
// certificate and application audit pages' Action lists on a log of a
// million records (TRUSTFRAME_BENCH_AUDIT_ROWS to change), on SQLite or,
// with TRUSTFRAME_TEST_POSTGRES set, PostgreSQL (docs/benchmarks.md).
func BenchmarkAuditFilterLists(b *testing.B) {
	n := 1000000
	if v := os.Getenv("TRUSTFRAME_BENCH_AUDIT_ROWS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	db, err := Open(ctx, storetest.Path(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	start := time.Now()
	heavy := fillAuditLog(b, db, n)
	// PostgreSQL's autovacuum would analyse a table after such a load;
	// the service never runs ANALYZE on SQLite, so its planner works from
	// its defaults here as in production.
	if db.Engine() == Postgres {
		if _, err := db.db.ExecContext(ctx, `VACUUM ANALYZE`); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("%s: %d audit records (%d of app-heavy) loaded in %s", db.Engine(), n, heavy, time.Since(start).Round(time.Millisecond))
	for _, c := range []struct {
		name string
		fn   func() ([]string, error)
		want int
	}{
		{"SubjectTypes", func() ([]string, error) { return db.AuditSubjectTypes(ctx) }, len(auditMixSubjects)},
		{"Actions", func() ([]string, error) { return db.AuditActions(ctx, "", "") }, len(auditMixActions) + 1},
		{"Actions/OrganisationCertificate", func() ([]string, error) { return db.AuditActions(ctx, "OrganisationCertificate", "") }, len(auditMixActions)},
		{"Actions/Application=app-heavy", func() ([]string, error) { return db.AuditActions(ctx, "Application", "app-heavy") }, 1},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				got, err := c.fn()
				if err != nil {
					b.Fatal(err)
				}
				if c.want > 0 && len(got) != c.want {
					b.Fatalf("%d values, want %d: %v", len(got), c.want, got)
				}
				if len(got) == 0 {
					b.Fatal("no values")
				}
			}
		})
	}
}

// BenchmarkAuditInsert times the audit write path with and without
// audit_actions' trigger (migration 0028), in the same process and on the
// same engine, so the machine's noise touches both alike: one op is a
// transaction of 64 records (a group commit's batch, groupcommit.go), of
// pairs already seen, as nearly every SSA's record is.
func BenchmarkAuditInsert(b *testing.B) {
	ctx := context.Background()
	for _, trigger := range []bool{true, false} {
		name := "trigger=on"
		if !trigger {
			name = "trigger=off"
		}
		b.Run(name, func(b *testing.B) {
			d, err := Open(ctx, storetest.Path(b), nil)
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			if !trigger {
				q := `DROP TRIGGER audit_log_actions`
				if d.Engine() == Postgres {
					q += ` ON audit_log`
				}
				if _, err := d.db.ExecContext(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
			r := AuditRecord{Actor: "bench", Action: "ssa_issued", SubjectType: "Application", SubjectID: "app-1", OrganisationID: "org-1", Summary: "SSA issued"}
			for b.Loop() {
				err := d.tx(ctx, func(tx *sql.Tx) error {
					for range 64 {
						if err := d.writeAudit(ctx, tx, r); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*64), "ns/record")
		})
	}
}
