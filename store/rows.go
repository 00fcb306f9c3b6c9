package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/trustframe/trustframe/directory"
)

// The helpers every resource's reads share: a resource's file keeps its SQL
// and its scan function (scanContact, scanDoc, …), and these run the query
// and collect the rows. They take whatever runs the query (*sql.DB or
// *sql.Tx), so a read inside a transaction stays inside it; on PostgreSQL
// the query text is rewritten below them, by the driver (engine.go). The
// hot reads that go through prepared statements (DB.queryRow) do not use
// them.

// rowScanner is what a scan function reads: a *sql.Row, or the current
// row of a *sql.Rows.
type rowScanner interface{ Scan(...any) error }

// querier runs a query of many rows: *sql.DB or *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// rowQuerier runs a query of one row: *sql.DB or *sql.Tx.
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// queryList runs query and reads every row with scan, in order. The list is
// never nil (an empty one is [] in JSON); on an error it is nil, whether
// the error came from the query, a row or the end of the rows.
func queryList[T any](ctx context.Context, q querier, scan func(rowScanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// queryOne runs query and reads its one row with scan: ErrNotFound when
// there is none.
func queryOne[T any](ctx context.Context, q rowQuerier, scan func(rowScanner) (T, error), query string, args ...any) (T, error) {
	v, err := scan(q.QueryRowContext(ctx, query, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return v, ErrNotFound
	}
	return v, err
}

// current reads, inside a change's transaction, the row the change starts
// from (queryOne: ErrNotFound when there is none) and runs check on it
// (nil: none; the If-Match of the request), whose error aborts the change.
func current[T any](ctx context.Context, tx *sql.Tx, scan func(rowScanner) (T, error), check func(T) error, query string, args ...any) (T, error) {
	cur, err := queryOne(ctx, tx, scan, query, args...)
	if err == nil && check != nil {
		err = check(cur)
	}
	return cur, err
}

// runCheck runs a caller's precondition on the stored record, when there
// is one.
func runCheck[T any](check directory.Check[T], cur T) error {
	if check == nil {
		return nil
	}
	return check(cur)
}

// scanString reads a row of one text column.
func scanString(row rowScanner) (string, error) {
	var s string
	err := row.Scan(&s)
	return s, err
}

// scanJSON reads a row of one text column that holds JSON (a public JWK).
func scanJSON(row rowScanner) (json.RawMessage, error) {
	s, err := scanString(row)
	return json.RawMessage(s), err
}

func orgExists(ctx context.Context, tx *sql.Tx, orgID string) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM organisations WHERE organisation_id = ?`, orgID).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}
