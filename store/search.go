package store

import (
	"context"
	"fmt"
	"strings"
)

// kidPrefixMin is the shortest text the search takes as the start of a
// kid: shorter, it would name too much to be worth listing.
const kidPrefixMin = 4

// SearchNames finds what q names across the directory, at most limit of
// each kind (limit+1 read, so the caller can say there are more):
// organisations by name or registration number, applications by client
// name, authorisation servers by name or issuer, contacts by first name,
// last name or e-mail address — every word of q the start of a word, case
// and accents ignored, through the search indexes (migrations 0003 and
// 0038) — and certificates and key material by the start of their kid.
// within (an Organisation Administrator's organisations) keeps only what
// belongs to those; nil is every organisation.
func (d *DB) SearchNames(ctx context.Context, q string, within []string, limit int) ([]Found, error) {
	q = strings.TrimSpace(q)
	if q == "" || len(q) > 500 {
		return nil, nil
	}
	var out []Found
	if m := ftsQuery(q); m != "" {
		match := func(table, alias string) (string, any) {
			if d.engine == Postgres {
				return alias + `.search @@ to_tsquery('simple', tf_fold(?))`, tsQuery(q)
			}
			return alias + `.rowid IN (SELECT rowid FROM ` + table + `_fts WHERE ` + table + `_fts MATCH ?)`, m
		}
		for _, k := range []struct{ what, table, alias, cols, join, order string }{
			{FoundOrganisation, "organisations", "o", "o.organisation_id, o.organisation_id, o.name, ''", "", "o.name"},
			{FoundApplication, "software_statements", "s", "s.organisation_id, s.software_statement_id, s.client_name, o.name", "JOIN organisations o ON o.organisation_id = s.organisation_id", "s.client_name"},
			{FoundServer, "authorisation_servers", "a", "a.organisation_id, a.authorisation_server_id, a.customer_friendly_name, o.name", "JOIN organisations o ON o.organisation_id = a.organisation_id", "a.customer_friendly_name"},
			{FoundContact, "contacts", "c", "c.organisation_id, c.contact_id, trim(c.first_name || ' ' || c.last_name || ' <' || c.email_address || '>'), o.name", "JOIN organisations o ON o.organisation_id = c.organisation_id", "c.last_name, c.first_name"},
		} {
			cond, arg := match(k.table, k.alias)
			found, err := d.searchKind(ctx, k.what, `SELECT `+k.cols+` FROM `+k.table+` `+k.alias+` `+k.join+` WHERE `+cond, []any{arg}, k.alias, within, k.order, limit)
			if err != nil {
				return nil, err
			}
			out = append(out, found...)
		}
	}
	if len(q) >= kidPrefixMin && !strings.ContainsAny(q, " \t") {
		// A range on the kid: the index (primary key, key_material_kid) finds it.
		lo, hi := q, q+"\U0010FFFF"
		for _, k := range []struct{ what, sql, alias, order string }{
			{FoundCertificate, `SELECT c.organisation_id, c.kid, c.kid || ' (' || c.subject_dn || ')', o.name FROM organisation_certificates c
				JOIN organisations o ON o.organisation_id = c.organisation_id WHERE c.kid >= ? AND c.kid < ?`, "c", "c.kid"},
			{FoundKeyMaterial, `SELECT k.organisation_id, k.key_material_id, k.kid, o.name FROM key_material k
				JOIN organisations o ON o.organisation_id = k.organisation_id WHERE k.kid >= ? AND k.kid < ?`, "k", "k.kid"},
		} {
			found, err := d.searchKind(ctx, k.what, k.sql, []any{lo, hi}, k.alias, within, k.order, limit)
			if err != nil {
				return nil, err
			}
			out = append(out, found...)
		}
	}
	return out, nil
}

// searchKind runs one kind's query of SearchNames, limited to within.
func (d *DB) searchKind(ctx context.Context, what, query string, args []any, alias string, within []string, order string, limit int) ([]Found, error) {
	if len(within) > 0 {
		query += ` AND ` + alias + `.organisation_id IN (` + strings.TrimSuffix(strings.Repeat("?,", len(within)), ",") + `)`
		for _, id := range within {
			args = append(args, id)
		}
	}
	query += ` ORDER BY ` + order + ` LIMIT ?`
	args = append(args, limit+1)
	out, err := queryList(ctx, d.db, func(row rowScanner) (Found, error) {
		f := Found{What: what}
		err := row.Scan(&f.OrganisationID, &f.ID, &f.Name, &f.OrganisationName)
		return f, err
	}, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: search %s: %w", what, err)
	}
	return out, nil
}
