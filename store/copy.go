package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrTargetNotEmpty is a copy refused because the target database already
// holds a directory (administrators, organisations or audit records).
var ErrTargetNotEmpty = errors.New("store: the target database is not empty")

// CopyProgress reports a copy's progress: rows of table copied so far, of
// total.
type CopyProgress func(table string, done, total int)

// CopyReport is what a copy moved and verified.
type CopyReport struct {
	Tables       int
	Rows         int
	AuditRecords int
}

// copyBatch is the rows one INSERT carries.
const copyBatch = 500

// CopyTo copies every row of this SQLite database into the empty
// PostgreSQL database to (both migrated by Open to the same version), in
// one transaction, then verifies that every table has as many rows on both
// sides and that the audit logs are identical, record for record.
func (d *DB) CopyTo(ctx context.Context, to *DB, progress CopyProgress) (CopyReport, error) {
	var rep CopyReport
	if d.engine != SQLite || to.engine != Postgres {
		return rep, fmt.Errorf("store: copy from SQLite to PostgreSQL only (from %s to %s)", d.engine, to.engine)
	}
	if progress == nil {
		progress = func(string, int, int) {}
	}
	from, _ := d.Migrations(ctx)
	into, _ := to.Migrations(ctx)
	if !slices.Equal(from, into) {
		return rep, fmt.Errorf("store: the databases are at different migrations (%d and %d)", len(from), len(into))
	}
	tables, err := d.copyOrder(ctx)
	if err != nil {
		return rep, err
	}
	err = to.tx(ctx, func(tx *sql.Tx) error {
		for _, t := range []string{"audit_log", "super_users", "data_administrators", "organisations"} {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+t).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return fmt.Errorf("%w: %s has %d rows", ErrTargetNotEmpty, t, n)
			}
		}
		// Reference data the migrations inserted is replaced by the source's.
		for i := len(tables) - 1; i >= 0; i-- {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+tables[i]); err != nil {
				return fmt.Errorf("store: copy: clear %s: %w", tables[i], err)
			}
		}
		for _, t := range tables {
			n, err := d.copyTable(ctx, tx, t, progress)
			if err != nil {
				return fmt.Errorf("store: copy %s: %w", t, err)
			}
			rep.Rows += n
		}
		// Identity columns go on after the copied ids.
		rows, err := tx.QueryContext(ctx, `SELECT table_name, column_name FROM information_schema.columns
			WHERE table_schema = current_schema() AND is_identity = 'YES'`)
		if err != nil {
			return err
		}
		var ident [][2]string
		for rows.Next() {
			var t, c string
			if err := rows.Scan(&t, &c); err != nil {
				rows.Close()
				return err
			}
			ident = append(ident, [2]string{t, c})
		}
		rows.Close()
		for _, tc := range ident {
			t, c := tc[0], tc[1]
			if _, err := tx.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence('`+t+`', '`+c+`'), COALESCE((SELECT MAX(`+c+`) FROM `+t+`), 0) + 1, false)`); err != nil {
				return fmt.Errorf("store: copy: %s ids: %w", t, err)
			}
		}
		return rows.Err()
	})
	if err != nil {
		return rep, err
	}
	rep.Tables = len(tables)
	// Verify from what is committed.
	for _, t := range tables {
		var a, b int
		if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+t).Scan(&a); err != nil {
			return rep, err
		}
		if err := to.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+t).Scan(&b); err != nil {
			return rep, err
		}
		if a != b {
			return rep, fmt.Errorf("store: copy: verify: %s has %d rows, the copy %d", t, a, b)
		}
	}
	ha, n, err := auditDigest(ctx, d.db)
	if err != nil {
		return rep, err
	}
	hb, _, err := auditDigest(ctx, to.db)
	if err != nil {
		return rep, err
	}
	if ha != hb {
		return rep, errors.New("store: copy: verify: the audit logs differ")
	}
	rep.AuditRecords = n
	return rep, nil
}

// auditDigest hashes every audit record in order.
func auditDigest(ctx context.Context, db *sql.DB) (string, int, error) {
	rows, err := db.QueryContext(ctx, `SELECT `+auditCols+` FROM audit_log ORDER BY id`)
	if err != nil {
		return "", 0, err
	}
	defer rows.Close()
	h := sha256.New()
	n := 0
	for rows.Next() {
		var id int64
		f := make([]string, 9)
		if err := rows.Scan(&id, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8]); err != nil {
			return "", 0, err
		}
		fmt.Fprintf(h, "%d\x00%s\x01", id, strings.Join(f, "\x00"))
		n++
	}
	return fmt.Sprintf("%x", h.Sum(nil)), n, rows.Err()
}

// copyOrder lists the source's tables, each after the tables it refers to.
func (d *DB) copyOrder(ctx context.Context) ([]string, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT name, COALESCE(sql, '') FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	var names []string
	var virtual []string
	for rows.Next() {
		var name, ddl string
		if err := rows.Scan(&name, &ddl); err != nil {
			rows.Close()
			return nil, err
		}
		if strings.HasPrefix(strings.ToUpper(ddl), "CREATE VIRTUAL TABLE") {
			virtual = append(virtual, name)
			continue
		}
		names = append(names, name)
	}
	rows.Close()
	keep := names[:0]
	for _, n := range names {
		// audit_actions is derived: the copy of audit_log fills it through
		// the trigger that keeps it (migration 0028), whatever the order.
		skip := strings.HasPrefix(n, "sqlite_") || n == "schema_migrations" || n == "audit_actions"
		for _, v := range virtual { // FTS5's own tables
			skip = skip || strings.HasPrefix(n, v+"_")
		}
		if !skip {
			keep = append(keep, n)
		}
	}
	deps := map[string][]string{}
	for _, n := range keep {
		r, err := d.db.QueryContext(ctx, `SELECT "table" FROM pragma_foreign_key_list(?)`, n)
		if err != nil {
			return nil, err
		}
		for r.Next() {
			var t string
			if err := r.Scan(&t); err != nil {
				r.Close()
				return nil, err
			}
			if t != n {
				deps[n] = append(deps[n], t)
			}
		}
		r.Close()
	}
	var order []string
	done := map[string]bool{}
	var visit func(string, int) error
	visit = func(n string, depth int) error {
		if done[n] {
			return nil
		}
		if depth > len(keep) {
			return fmt.Errorf("store: copy: foreign keys loop at %s", n)
		}
		for _, t := range deps[n] {
			if err := visit(t, depth+1); err != nil {
				return err
			}
		}
		done[n] = true
		order = append(order, n)
		return nil
	}
	for _, n := range keep {
		if err := visit(n, 0); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// copyTable copies one table in batches of multi-row INSERTs.
func (d *DB) copyTable(ctx context.Context, tx *sql.Tx, table string, progress CopyProgress) (int, error) {
	var total int
	if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+table).Scan(&total); err != nil {
		return 0, err
	}
	rows, err := d.db.QueryContext(ctx, `SELECT * FROM `+table)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = `"` + c + `"`
	}
	head := `INSERT INTO ` + table + ` (` + strings.Join(quoted, ", ") + `) VALUES `
	one := `(` + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + `)`
	var batch []any
	n, inBatch := 0, 0
	flush := func() error {
		if inBatch == 0 {
			return nil
		}
		q := head + strings.TrimSuffix(strings.Repeat(one+", ", inBatch), ", ")
		if _, err := tx.ExecContext(ctx, q, batch...); err != nil {
			return err
		}
		batch, inBatch = batch[:0], 0
		progress(table, n, total)
		return nil
	}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return n, err
		}
		batch = append(batch, vals...)
		inBatch++
		n++
		if inBatch == copyBatch {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return n, err
	}
	if err := flush(); err != nil {
		return n, err
	}
	if total == 0 {
		progress(table, 0, 0)
	}
	return n, nil
}
