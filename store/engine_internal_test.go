package store

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestPgRewrite(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT a FROM t WHERE b = ? AND c = ?`:                                       `SELECT a FROM t WHERE b = $1 AND c = $2`,
		`SELECT '?', "x?" FROM t WHERE b = ? -- why?` + "\n" + `AND c=?`:              `SELECT '?', "x?" FROM t WHERE b = $1 -- why?` + "\n" + `AND c=$2`,
		`SELECT 'it''s ?' WHERE a = ?`:                                                `SELECT 'it''s ?' WHERE a = $1`,
		`SELECT x FROM t WHERE e = ?1 OR f = ?1`:                                      `SELECT x FROM t WHERE e = $1 OR f = $1`,
		`INSERT OR IGNORE INTO t(a) VALUES (?)`:                                       `INSERT INTO t(a) VALUES ($1) ON CONFLICT DO NOTHING`,
		`ORDER BY name COLLATE NOCASE DESC, id`:                                       `ORDER BY lower(name) DESC, id`,
		`ORDER BY c.name COLLATE NOCASE, COALESCE(s.a, b.c, '') COLLATE NOCASE`:       `ORDER BY lower(c.name), lower(COALESCE(s.a, b.c, ''))`,
		`SELECT group_concat(f, char(31) ORDER BY f) FROM t INDEXED BY t_i WHERE 1=1`: `SELECT string_agg(f, chr(31) ORDER BY f) FROM t WHERE 1=1`,
	} {
		if got := pgRewrite(in); got != want {
			t.Errorf("pgRewrite(%s)\n = %s\nwant %s", in, got, want)
		}
	}
}

// PostgreSQL's refusals that mean "try again" or "no room" are ErrBusy and
// ErrFull as SQLite's are; a lost connection is ErrUnavailable (an ErrBusy).
func TestBusyMapsPostgresErrors(t *testing.T) {
	for code, want := range map[string]error{"40001": ErrBusy, "40P01": ErrBusy, "55P03": ErrBusy, "53100": ErrFull} {
		if err := busy(fmt.Errorf("store: x: %w", &pgconn.PgError{Code: code})); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", code, err, want)
		}
	}
	if err := busy(&pgconn.PgError{Code: "23505"}); errors.Is(err, ErrBusy) || errors.Is(err, ErrFull) {
		t.Errorf("a unique violation became %v", err)
	}
	if err := lost(&pgconn.PgError{Code: "57P01"}); !errors.Is(err, ErrUnavailable) || !errors.Is(err, ErrBusy) {
		t.Errorf("admin shutdown: %v", err)
	}
	if err := lost(&pgconn.PgError{Code: "22P02"}); errors.Is(err, ErrUnavailable) {
		t.Errorf("a bad value became %v", err)
	}
}

// A request that goes away is not a database outage: its error keeps
// context.Canceled and is not ErrBusy (the handlers log it as 499).
func TestLostKeepsCancellation(t *testing.T) {
	err := lost(fmt.Errorf("read: %w", context.Canceled))
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrBusy) {
		t.Fatalf("%v", err)
	}
}
