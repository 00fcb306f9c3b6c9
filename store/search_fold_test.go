package store_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"unicode"

	"github.com/trustframe/trustframe/store"
)

// TestSearchFoldsAsSQLite: the organisation search folds case and accents
// the same way on both engines, the way SQLite's FTS5 index (unicode61
// remove_diacritics 2) does. PostgreSQL's first search (migration 0003,
// unaccent and ICU lower) also turned Ø into o, Ł into l and ß into ss and
// took the accents off Greek and Cyrillic letters, so "orsted" found
// Ørsted on PostgreSQL only, and a copied directory answered differently
// (TestCopyDatabaseSameAnswers).
func TestSearchFoldsAsSQLite(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	for _, name := range []string{"Ørsted Sparekasse", "Zürich Kantonalbank", "Société Générale", "Straße Bank", "Łódź Bank", "Αθήνα Τράπεζα", "Ёлка Банк", "CAIXA ECONÓMICA"} {
		if _, err := db.CreateOrganisation(ctx, store.Audit{Actor: "t"}, store.Organisation{OrganisationName: name, RegistrationNumber: "R-" + name, CountryOfRegistration: "GB", Status: "Active"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for q, want := range map[string]string{
		"ørsted": "Ørsted Sparekasse", "ØRSTED": "Ørsted Sparekasse", "orsted": "",
		"zurich": "Zürich Kantonalbank", "ZÜRICH": "Zürich Kantonalbank",
		"societe generale": "Société Générale", "géné": "Société Générale",
		"straße": "Straße Bank", "strasse": "",
		"łodz": "Łódź Bank", "lodz": "",
		"αθήνα": "Αθήνα Τράπεζα", "ΑΘΉΝΑ": "Αθήνα Τράπεζα", "αθηνα": "",
		"ёлка": "Ёлка Банк", "елка": "",
		"economica": "CAIXA ECONÓMICA", "caixa": "CAIXA ECONÓMICA",
	} {
		got, total, err := db.ListOrganisations(ctx, store.OrgFilter{Q: q, Size: 20})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, o := range got {
			names = append(names, o.OrganisationName)
		}
		if strings.Join(names, ",") != want || total != len(names) {
			t.Errorf("%s: q=%q found %q (total %d), want %q", db.Engine(), q, names, total, want)
		}
	}
	if db.Engine() != store.Postgres {
		return
	}
	// Every letter and digit that SQLite keeps inside a word: PostgreSQL's
	// words of "a<c>a" are SQLite's tokens of it, so every such letter folds
	// the same way. (The marks, in the table, are what SQLite removes. Left
	// out: the few letters SQLite's older Unicode tables take for separators,
	// and other numbers, ² or ½, which PostgreSQL takes for separators.)
	lite, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	lite.SetMaxOpenConns(1)
	if _, err := lite.Exec(`CREATE VIRTUAL TABLE f USING fts5(x, tokenize='unicode61 remove_diacritics 2');
		CREATE VIRTUAL TABLE v USING fts5vocab(f, 'instance')`); err != nil {
		t.Fatal(err)
	}
	tx, _ := lite.Begin()
	var all []rune
	for c := rune(0x21); c <= unicode.MaxRune; c++ {
		if (c >= 0xD800 && c <= 0xDFFF) || !(unicode.IsLetter(c) || unicode.IsNumber(c) || unicode.IsMark(c)) {
			continue
		}
		all = append(all, c)
		if _, err := tx.Exec(`INSERT INTO f(rowid, x) VALUES (?, ?)`, int64(c), "a"+string(c)+"a"); err != nil {
			t.Fatal(err)
		}
	}
	tx.Commit()
	want := map[rune]string{}
	rows, err := lite.Query(`SELECT doc, group_concat(term, ' ') FROM (SELECT doc, term FROM v ORDER BY doc, offset) GROUP BY doc`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c int64
		var terms string
		rows.Scan(&c, &terms)
		want[rune(c)] = terms
	}
	rows.Close()
	rows, err = db.SQL().QueryContext(ctx, `SELECT c, array_to_string(tsvector_to_array(to_tsvector('simple', tf_words('a' || c || 'a'))), ' ')
		FROM unnest(string_to_array($1, NULL)) AS c`, string(all))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	bad := 0
	for rows.Next() {
		var c, words string
		rows.Scan(&c, &words)
		r := []rune(c)[0]
		w := want[r]
		if !(unicode.IsLetter(r) || unicode.Is(unicode.Nd, r)) || strings.Contains(w, " ") {
			continue
		}
		if w != words {
			if bad++; bad <= 10 {
				t.Errorf("%U %s: SQLite's words %q, PostgreSQL's %q", r, c, w, words)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d letters and digits fold differently", bad)
	}
}
