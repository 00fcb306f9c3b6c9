package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/store/storetest"
)

func openInternal(t *testing.T, opts ...Option) *DB {
	t.Helper()
	d, err := Open(context.Background(), storetest.Path(t), nil, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	// The key the tests' SSA records name: a record is written only while
	// its key is Active (RecordSSA).
	if err := d.AddSigningKey(context.Background(), Audit{Actor: "a@example.com"}, SigningKey{Kid: "kid", Alg: "PS256", PublicJWK: `{}`, PrivateEnc: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	return d
}

// fillAuditLog appends n records to the audit log with one INSERT … SELECT
// per batch (the log is append-only; this is the quick way to a large
// one). The mix: 97% ssa_issued on Application, spread over 2,000
// applications of which one, app-heavy, has a tenth of them; the rest
// over 15 subject types and 40 other actions. It returns the records
// of app-heavy.
func fillAuditLog(tb testing.TB, db *DB, n int) int {
	tb.Helper()
	ctx := context.Background()
	const batch = 100000
	rare := `(i / 33)`
	cols := `(at, actor, action, subject_type, subject_id, organisation_id, key_id, certificate_type, summary)`
	sel := `SELECT '2026-01-01T00:00:00Z', 'bench@example.com',
		CASE WHEN i % 33 = 0 THEN ` + sqlCase(rare+` / 15`, auditMixActions) + ` ELSE 'ssa_issued' END,
		CASE WHEN i % 33 = 0 THEN ` + sqlCase(rare, auditMixSubjects) + ` ELSE 'Application' END,
		CASE WHEN i % 33 = 0 THEN 'thing-' || (i % 5000) WHEN i % 10 = 1 THEN 'app-heavy' ELSE 'app-' || (i % 2000) END,
		'org-' || (i % 1000), '', '', 'benchmark record'`
	for from := 1; from <= n; from += batch {
		to := min(from+batch-1, n)
		q := fmt.Sprintf(`WITH RECURSIVE s(i) AS (SELECT %d UNION ALL SELECT i + 1 FROM s WHERE i < %d)
			INSERT INTO audit_log %s %s FROM s`, from, to, cols, sel)
		if _, err := db.db.ExecContext(ctx, q); err != nil {
			tb.Fatal(err)
		}
	}
	var heavy int
	for i := 1; i <= n; i++ {
		if i%33 != 0 && i%10 == 1 {
			heavy++
		}
	}
	return heavy
}

// queryPlanOn is queryPlan on one connection (or any querier) of engine e:
// the plan's lines (SQLite's details, PostgreSQL's lines), one a line.
func queryPlanOn(t *testing.T, db interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, e Engine, q string, args ...any) string {
	t.Helper()
	explain := `EXPLAIN QUERY PLAN `
	if e == Postgres {
		explain = `EXPLAIN `
	}
	rows, err := db.QueryContext(context.Background(), explain+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var plan []string
	for rows.Next() {
		v := make([]any, len(cols))
		p := make([]any, len(cols))
		for i := range v {
			p[i] = &v[i]
		}
		if err := rows.Scan(p...); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, fmt.Sprint(v[len(v)-1]))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}
