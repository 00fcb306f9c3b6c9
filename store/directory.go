package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/trustframe/trustframe/directory"
)

// FieldError is a refusal about one field that only the store can judge
// (an unknown flag, a duplicate issuer): the application layer's.
type FieldError = directory.FieldError

// NewID returns a random (version 4) UUID.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// diff summarises what changed between two versions of a resource, for the
// audit log: "Field: old -> new; …". Timestamps are left out.
func diff(before, after any) string {
	ab, _ := json.Marshal(before)
	bb, _ := json.Marshal(after)
	// Numbers as their text: as float64, two integers past 2^53 (in a
	// policy's JSON) would compare equal and a change would be dropped.
	a, b := decodeNumbers(ab), decodeNumbers(bb)
	// Both sides' members: an optional member that became empty is left
	// out of the JSON after (omitempty), and is still a change.
	keys := make([]string, 0, len(b))
	for k := range b {
		keys = append(keys, k)
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		if k == "CreatedOn" || k == "UpdatedOn" {
			continue
		}
		if !reflect.DeepEqual(a[k], b[k]) {
			parts = append(parts, fmt.Sprintf("%s: %s -> %s", k, short(a[k]), short(b[k])))
		}
	}
	if len(parts) == 0 {
		return "no change"
	}
	return strings.Join(parts, "; ")
}

// decodeNumbers is the JSON object b, its numbers as json.Number.
func decodeNumbers(b []byte) map[string]any {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	_ = dec.Decode(&m)
	return m
}

// created summarises a new resource for the audit log.
func created(v any) string {
	var m map[string]any
	b, _ := json.Marshal(v)
	_ = json.Unmarshal(b, &m)
	keys := make([]string, 0, len(m))
	for k, val := range m {
		if val == nil || val == "" || k == "CreatedOn" || k == "UpdatedOn" {
			continue
		}
		if l, ok := val.([]any); ok && len(l) == 0 {
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+": "+short(m[k]))
	}
	return strings.Join(parts, "; ")
}

func short(v any) string {
	if v == nil {
		return "(none)"
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
		if s == "" {
			return "(none)"
		}
	default:
		b, _ := json.Marshal(x)
		s = string(b)
	}
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

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
