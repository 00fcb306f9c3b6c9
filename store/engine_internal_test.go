package store

import "testing"

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
