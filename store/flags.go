package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

func jsonList(l []string) string {
	if l == nil {
		l = []string{}
	}
	b, _ := json.Marshal(l)
	return string(b)
}

func parseList(s string) []string {
	out := []string{}
	_ = json.Unmarshal([]byte(s), &out)
	return out
}

// checkFlags refuses, as a FieldError on Flags, a flag listed twice, one
// that does not exist or applies to another type, and an Inactive one the
// record does not hold already.
func checkFlags(ctx context.Context, tx *sql.Tx, table, idCol, id, flagType string, flags []string) error {
	current := map[string]bool{}
	rows, err := tx.QueryContext(ctx, `SELECT flag_id FROM `+table+` WHERE `+idCol+` = ?`, id)
	if err != nil {
		return err
	}
	for rows.Next() {
		var f string
		if err := rows.Scan(&f); err != nil {
			rows.Close()
			return err
		}
		current[f] = true
	}
	rows.Close()
	seen := map[string]bool{}
	for _, f := range flags {
		if seen[f] {
			return &FieldError{Field: "Flags", Message: fmt.Sprintf("flag %s is listed twice", f)}
		}
		seen[f] = true
		var typ, status string
		err := tx.QueryRowContext(ctx, `SELECT type, status FROM flags WHERE flag_id = ?`, f).Scan(&typ, &status)
		if errors.Is(err, sql.ErrNoRows) {
			return &FieldError{Field: "Flags", Message: fmt.Sprintf("there is no flag %s", f)}
		}
		if err != nil {
			return err
		}
		if typ != flagType {
			return &FieldError{Field: "Flags", Message: fmt.Sprintf("flag %s applies to %s, not %s", f, typ, flagType)}
		}
		if status != "Active" && !current[f] {
			return &FieldError{Field: "Flags", Message: fmt.Sprintf("flag %s is Inactive and cannot be added", f)}
		}
	}
	return nil
}

// setFlags replaces the flags of a resource after checking each exists and
// is of the right type. A flag that is Inactive may be kept but not added.
func setFlags(ctx context.Context, tx *sql.Tx, table, idCol, id, flagType string, flags []string) error {
	if err := checkFlags(ctx, tx, table, idCol, id, flagType, flags); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE `+idCol+` = ?`, id); err != nil {
		return err
	}
	for _, f := range flags {
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+table+`(`+idCol+`, flag_id) VALUES (?, ?)`, id, f); err != nil {
			return err
		}
	}
	return nil
}

func flagsOf(ctx context.Context, q querier, table, idCol string, ids []string) (map[string][]string, error) {
	out := map[string][]string{}
	// SQLite caps the variables of one statement: ask in chunks.
	const chunk = 500
	for len(ids) > 0 {
		n := min(len(ids), chunk)
		args := make([]any, n)
		for i, id := range ids[:n] {
			args[i] = id
		}
		ids = ids[n:]
		rows, err := q.QueryContext(ctx, `SELECT `+idCol+`, flag_id FROM `+table+` WHERE `+idCol+` IN (?`+strings.Repeat(",?", n-1)+`) ORDER BY flag_id`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id, f string
			if err := rows.Scan(&id, &f); err != nil {
				rows.Close()
				return nil, err
			}
			out[id] = append(out[id], f)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// withFlags sets the flags of every item of list from table (its idCol the
// item's id): of names an item's id and its Flags field.
func withFlags[T any](ctx context.Context, q querier, table, idCol string, list []T, of func(*T) (string, *[]string)) error {
	ids := make([]string, len(list))
	for i := range list {
		ids[i], _ = of(&list[i])
	}
	flags, err := flagsOf(ctx, q, table, idCol, ids)
	for i := range list {
		id, f := of(&list[i])
		*f = nonNil(flags[id])
	}
	return err
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}
