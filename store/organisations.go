package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/trustframe/trustframe/directory"
)

// Organisation is a participant of the trust framework.
type Organisation = directory.Organisation

const orgCols = `organisation_id, name, legal_entity_name, registration_number, country, address_line1, address_line2, city, postcode, status, created_on, updated_on`

// orgFlagsCol is the flags of the row's organisation, as one column
// (ids joined by U+001F, in order): a page or a point read is one query,
// one round trip on PostgreSQL, instead of two.
const orgFlagsCol = `(SELECT group_concat(flag_id, char(31) ORDER BY flag_id) FROM organisation_flags f WHERE f.organisation_id = organisations.organisation_id)`

// scanOrgFlags reads a row of orgCols followed by orgFlagsCol.
func scanOrgFlags(row rowScanner) (Organisation, error) {
	var o Organisation
	var c, u string
	var flags sql.NullString
	err := row.Scan(&o.OrganisationID, &o.OrganisationName, &o.LegalEntityName, &o.RegistrationNumber, &o.CountryOfRegistration,
		&o.AddressLine1, &o.AddressLine2, &o.City, &o.Postcode, &o.Status, &c, &u, &flags)
	o.CreatedOn, o.UpdatedOn = parseStamp(c), parseStamp(u)
	o.Flags = []string{}
	if flags.String != "" {
		o.Flags = strings.Split(flags.String, "\x1f")
	}
	return o, err
}

func scanOrg(row rowScanner) (Organisation, error) {
	var o Organisation
	var c, u string
	err := row.Scan(&o.OrganisationID, &o.OrganisationName, &o.LegalEntityName, &o.RegistrationNumber, &o.CountryOfRegistration,
		&o.AddressLine1, &o.AddressLine2, &o.City, &o.Postcode, &o.Status, &c, &u)
	o.CreatedOn, o.UpdatedOn = parseStamp(c), parseStamp(u)
	o.Flags = []string{}
	return o, err
}

// OrgFilter selects and orders organisations (directory.OrgFilter).
type OrgFilter = directory.OrgFilter

// OrgSortColumns are the sortable fields of the organisation list.
var OrgSortColumns = map[string]string{
	"OrganisationName":      "name COLLATE NOCASE",
	"RegistrationNumber":    "registration_number",
	"CountryOfRegistration": "country",
	"Status":                "status",
	"CreatedOn":             "created_on",
}

// orgWhere is the WHERE clause of the organisations f selects on the
// engine e, and its arguments.
func orgWhere(f OrgFilter, e Engine) (string, []any) {
	where := []string{"1=1"}
	var args []any
	if m := ftsQuery(f.Q); m != "" && e == Postgres {
		// The same words as prefixes against the tsvector (migration 0003).
		where = append(where, `search @@ to_tsquery('simple', tf_fold(?))`)
		args = append(args, tsQuery(f.Q))
	} else if m != "" {
		where = append(where, `rowid IN (SELECT rowid FROM organisations_fts WHERE organisations_fts MATCH ?)`)
		args = append(args, m)
	} else if strings.TrimSpace(f.Q) != "" {
		// Only punctuation: nothing can match a word.
		where = append(where, "1=0")
	}
	if f.Status != "" {
		where = append(where, "status = ?")
		args = append(args, f.Status)
	}
	if f.Within != "" {
		ids := strings.Split(f.Within, ",")
		where = append(where, "organisation_id IN ("+strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")+")")
		for _, id := range ids {
			args = append(args, id)
		}
	}
	if f.Flag != "" {
		where = append(where, "organisation_id IN (SELECT organisation_id FROM organisation_flags WHERE flag_id = ?)")
		args = append(args, f.Flag)
	}
	switch {
	case f.Role != "" && f.Domain != "":
		where = append(where, "organisation_id IN (SELECT organisation_id FROM organisation_authority_claims WHERE domain = ? AND role = ? AND status = 'Active')")
		args = append(args, f.Domain, f.Role)
	case f.Role != "":
		where = append(where, "organisation_id IN (SELECT organisation_id FROM organisation_authority_claims WHERE role = ? AND status = 'Active')")
		args = append(args, f.Role)
	case f.Domain != "":
		where = append(where, "organisation_id IN (SELECT organisation_id FROM organisation_authority_claims WHERE domain = ? AND status = 'Active')")
		args = append(args, f.Domain)
	}
	return strings.Join(where, " AND "), args
}

// ftsQuery turns what a person typed into an FTS5 query: every word must
// start a word of the name or registration number ("acme ban" finds
// "Acme Bank plc"). Words are quoted, so FTS syntax in the input is inert.
func ftsQuery(q string) string {
	words := strings.FieldsFunc(q, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
	parts := make([]string, 0, len(words))
	for _, w := range words {
		parts = append(parts, `"`+w+`"*`)
	}
	return strings.Join(parts, " ")
}

// tsQuery is ftsQuery for PostgreSQL: the same words, each a quoted
// prefix, all required ('acme':* & 'ban':*).
func tsQuery(q string) string {
	words := strings.FieldsFunc(q, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
	parts := make([]string, 0, len(words))
	for _, w := range words {
		parts = append(parts, `'`+w+`':*`)
	}
	return strings.Join(parts, " & ")
}

// orgKey names what f selects (not its order nor its page), for the
// list cache.
func orgKey(f OrgFilter) string {
	return f.Q + "\x00" + f.Status + "\x00" + f.Flag + "\x00" + f.Domain + "\x00" + f.Role
}

// ListOrganisations returns one page of organisations and the total that
// match the filter. Totals and page anchors are cached until the next
// write to organisations, so deep pages cost what the first page costs.
func (d *DB) ListOrganisations(ctx context.Context, f OrgFilter) ([]Organisation, int, error) {
	col, ok := OrgSortColumns[f.Sort]
	if !ok {
		f.Sort = "OrganisationName"
		col = OrgSortColumns[f.Sort]
	}
	if f.Size <= 0 {
		f.Size = 20
	}
	where, args := orgWhere(f, d.engine)
	d.Sync(ctx)
	total, ok, tok := d.lists.count(f)
	if !ok {
		if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM organisations WHERE `+where, args...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("store: count organisations: %w", err)
		}
		d.lists.putCount(f, tok, total)
	}
	offset := f.Page * f.Size
	if offset >= total {
		return []Organisation{}, total, nil
	}
	pageArgs := append([]any{}, args...)
	skip := offset
	keyset := false
	if offset >= anchorStep {
		if a, ok := d.lists.seek(f, offset); ok {
			keyset = true
			pageArgs = append(pageArgs, a.val, a.val, a.id)
			skip = offset - a.pos
		} else {
			// No anchors yet: this page pays an OFFSET, the next ones not.
			d.lists.buildAnchors(f, func(ctx context.Context) ([]anchor, error) {
				return d.orgAnchors(ctx, col, orgOrder(col, f.Desc), where, args)
			})
		}
	}
	out, err := queryList(ctx, d.db, scanOrgFlags, orgPageSQL(col, f.Desc, where, keyset), append(pageArgs, f.Size, skip)...)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list organisations: %w", err)
	}
	return out, total, nil
}

// orgOrder is the ORDER BY of the organisation list sorted on col: the
// organisation id breaks ties, so every row has one place.
func orgOrder(col string, desc bool) string {
	dir := "ASC"
	if desc {
		dir = "DESC"
	}
	return col + ` ` + dir + `, organisation_id ` + dir
}

// orgPageSQL is the query of one page of the organisation list sorted on
// col: the ids of the page by the sort's index (from a page anchor on when
// keyset), then their rows and flags. Its arguments are where's, then the
// anchor's (value, value, id) when keyset, then the page size and the rows
// to skip. On PostgreSQL the ids come from the index alone (an index-only
// scan, migration 0027), as they do from SQLite's covering index.
func orgPageSQL(col string, desc bool, where string, keyset bool) string {
	cmp, strict := ">=", ">"
	if desc {
		cmp, strict = "<=", "<"
	}
	order := orgOrder(col, desc)
	inner := `SELECT organisation_id FROM organisations WHERE ` + where
	if keyset {
		// (sort value, id) from the anchor on, written so that SQLite
		// seeks the index (a row value with COLLATE would scan it).
		inner += ` AND ` + col + ` ` + cmp + ` ? AND (` + col + ` ` + strict + ` ? OR organisation_id ` + cmp + ` ?)`
	}
	return `SELECT ` + orgCols + `, ` + orgFlagsCol + ` FROM organisations WHERE organisation_id IN (` + inner + ` ORDER BY ` + order + ` LIMIT ? OFFSET ?) ORDER BY ` + order
}

// orgAnchors reads the (sort value, id) of every anchorStep-th row of a
// filtered, sorted list by one pass over the index (in the background).
func (d *DB) orgAnchors(ctx context.Context, col, order, where string, args []any) ([]anchor, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT `+col+`, organisation_id FROM organisations WHERE `+where+` ORDER BY `+order, args...)
	if err != nil {
		return nil, fmt.Errorf("store: page anchors: %w", err)
	}
	defer rows.Close()
	var a []anchor
	i := 0
	for rows.Next() {
		if i%anchorStep == 0 {
			an := anchor{pos: i}
			if err := rows.Scan(&an.val, &an.id); err != nil {
				return nil, err
			}
			a = append(a, an)
		}
		i++
	}
	return a, rows.Err()
}

// committed is the changes of a write that committed, none of one that failed.
func committed(changes []rowChange, err error) []rowChange {
	if err != nil {
		return nil
	}
	return changes
}

// listRowTx reads what the list caches need of one organisation (nil when
// there is none).
func listRowTx(ctx context.Context, tx *sql.Tx, id string) (*listRow, error) {
	r := &listRow{id: id, vals: map[string]string{}}
	var name, reg, country, created string
	err := tx.QueryRowContext(ctx, `SELECT name, registration_number, country, status, created_on FROM organisations WHERE organisation_id = ?`, id).
		Scan(&name, &reg, &country, &r.status, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r.vals["OrganisationName"], r.vals["RegistrationNumber"], r.vals["CountryOfRegistration"] = name, reg, country
	r.vals["Status"], r.vals["CreatedOn"] = r.status, created
	fl, err := flagsOf(ctx, tx, "organisation_flags", "organisation_id", []string{id})
	r.flags = fl[id]
	return r, err
}

// GetOrganisation returns one organisation or ErrNotFound.
func (d *DB) GetOrganisation(ctx context.Context, id string) (Organisation, error) {
	// One prepared statement, flags included: this is the API's hottest
	// read, and each statement is a read transaction of its own.
	o, err := scanOrgFlags(d.queryRow(ctx, `SELECT `+orgCols+`, `+orgFlagsCol+` FROM organisations WHERE organisation_id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return o, ErrNotFound
	}
	if err != nil {
		return o, fmt.Errorf("store: get organisation: %w", err)
	}
	return o, nil
}

func getOrgTx(ctx context.Context, tx *sql.Tx, id string) (Organisation, error) {
	o, err := scanOrg(tx.QueryRowContext(ctx, `SELECT `+orgCols+` FROM organisations WHERE organisation_id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return o, ErrNotFound
	}
	if err != nil {
		return o, err
	}
	flags, err := flagsOf(ctx, tx, "organisation_flags", "organisation_id", []string{id})
	o.Flags = nonNil(flags[id])
	return o, err
}

// CreateOrganisation adds an organisation (its id given or generated).
func (d *DB) CreateOrganisation(ctx context.Context, a Audit, o Organisation, problems directory.Fields) (Organisation, error) {
	if o.OrganisationID == "" {
		o.OrganisationID = NewID()
	}
	var changes []rowChange
	d.lists.beginWrite()
	err := d.tx(ctx, func(tx *sql.Tx) error {
		problems := directory.Fields{}.Merge(problems)
		if err := problems.Take(checkFlags(ctx, tx, "organisation_flags", "organisation_id", o.OrganisationID, "Organisation", o.Flags)); err != nil {
			return err
		}
		if err := problems.Err(); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM organisations WHERE organisation_id = ?`, o.OrganisationID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return &ConflictError{Message: "an organisation with OrganisationId " + o.OrganisationID + " exists"}
		}
		now := d.stamp()
		if _, err := tx.ExecContext(ctx, `INSERT INTO organisations(`+orgCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`,
			o.OrganisationID, o.OrganisationName, o.LegalEntityName, o.RegistrationNumber, o.CountryOfRegistration,
			o.AddressLine1, o.AddressLine2, o.City, o.Postcode, o.Status, now, now); err != nil {
			return err
		}
		if err := setFlags(ctx, tx, "organisation_flags", "organisation_id", o.OrganisationID, "Organisation", o.Flags); err != nil {
			return err
		}
		o.Flags = nonNil(o.Flags)
		row, err := listRowTx(ctx, tx, o.OrganisationID)
		if err != nil {
			return err
		}
		changes = []rowChange{{new: row}}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "create", SubjectType: "Organisation",
			SubjectID: o.OrganisationID, OrganisationID: o.OrganisationID, Summary: created(o)})
	})
	d.lists.endWrite(committed(changes, err))
	if err != nil {
		return Organisation{}, err
	}
	return d.GetOrganisation(ctx, o.OrganisationID)
}

// UpdateOrganisation replaces the writable fields of an organisation.
// problems are what is already known to be wrong with its fields: the
// flags' check is added, and when any remains nothing is written. check
// then runs inside the transaction with the current version (If-Match,
// status transitions); its error aborts the update.
func (d *DB) UpdateOrganisation(ctx context.Context, a Audit, o Organisation, problems directory.Fields, check directory.Check[Organisation]) (Organisation, error) {
	var changes []rowChange
	d.lists.beginWrite()
	err := d.tx(ctx, func(tx *sql.Tx) error {
		problems := directory.Fields{}.Merge(problems)
		cur, err := getOrgTx(ctx, tx, o.OrganisationID)
		if err != nil {
			return err
		}
		if err := problems.Take(checkFlags(ctx, tx, "organisation_flags", "organisation_id", o.OrganisationID, "Organisation", o.Flags)); err != nil {
			return err
		}
		if err := problems.Err(); err != nil {
			return err
		}
		before, err := listRowTx(ctx, tx, o.OrganisationID)
		if err != nil {
			return err
		}
		if check != nil {
			if err := check(cur); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE organisations SET name=?, legal_entity_name=?, registration_number=?, country=?,
			address_line1=?, address_line2=?, city=?, postcode=?, status=?, updated_on=? WHERE organisation_id=?`,
			o.OrganisationName, o.LegalEntityName, o.RegistrationNumber, o.CountryOfRegistration, o.AddressLine1, o.AddressLine2,
			o.City, o.Postcode, o.Status, d.stamp(), o.OrganisationID); err != nil {
			return err
		}
		if err := setFlags(ctx, tx, "organisation_flags", "organisation_id", o.OrganisationID, "Organisation", o.Flags); err != nil {
			return err
		}
		next, err := getOrgTx(ctx, tx, o.OrganisationID)
		if err != nil {
			return err
		}
		after, err := listRowTx(ctx, tx, o.OrganisationID)
		if err != nil {
			return err
		}
		changes = []rowChange{{old: before, new: after}}
		if err := d.writeUpdateAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: updateAction(cur.Status, next.Status), SubjectType: "Organisation",
			SubjectID: o.OrganisationID, OrganisationID: o.OrganisationID, Summary: withReason(diff(cur, next), a.Reason)}); err != nil {
			return err
		}
		if next.Status == "Withdrawn" && cur.Status != "Withdrawn" {
			// What the directory's CA issued for it ends with it (pki.go).
			if err := d.revokeIssuedFor(ctx, tx, a, o.OrganisationID, ""); err != nil {
				return err
			}
		}
		return d.revokeLapsedMarks(ctx, tx, a, lapseScope{orgID: o.OrganisationID})
	})
	d.lists.endWrite(committed(changes, err))
	if err != nil {
		return Organisation{}, err
	}
	return d.GetOrganisation(ctx, o.OrganisationID)
}

// Participant is an active organisation with its active authorisation
// servers and its Active authority claims, in the shape participant
// consumers of the open-finance directories read.
type Participant struct {
	Organisation
	AuthorisationServers []AuthorisationServer `json:"AuthorisationServers"`
	OrgDomainClaims      []OrgDomainClaim      `json:"OrgDomainClaims"`
	OrgDomainRoleClaims  []OrgDomainRoleClaim  `json:"OrgDomainRoleClaims"`
}

// Participants lists every Active organisation with its Active servers.
func (d *DB) Participants(ctx context.Context) ([]Participant, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT `+orgCols+` FROM organisations WHERE status = 'Active' ORDER BY name COLLATE NOCASE, organisation_id`)
	if err != nil {
		return nil, err
	}
	var out []Participant
	index := map[string]int{}
	var ids []string
	for rows.Next() {
		o, err := scanOrg(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		index[o.OrganisationID] = len(out)
		ids = append(ids, o.OrganisationID)
		out = append(out, Participant{Organisation: o, AuthorisationServers: []AuthorisationServer{}, OrgDomainClaims: []OrgDomainClaim{}, OrgDomainRoleClaims: []OrgDomainRoleClaim{}})
	}
	rows.Close()
	if err := participantClaims(ctx, d.db, out, index); err != nil {
		return nil, err
	}
	flags, err := flagsOf(ctx, d.db, "organisation_flags", "organisation_id", ids)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Flags = nonNil(flags[out[i].OrganisationID])
	}
	servers, err := queryList(ctx, d.db, scanAS, `SELECT `+asSelect+` FROM authorisation_servers s WHERE status = 'Active'
		AND organisation_id IN (SELECT organisation_id FROM organisations WHERE status = 'Active') ORDER BY customer_friendly_name`)
	if err != nil {
		return nil, err
	}
	if err := withFlags(ctx, d.db, "authorisation_server_flags", "authorisation_server_id", servers, asFlags); err != nil {
		return nil, err
	}
	for _, s := range servers {
		i := index[s.OrganisationID]
		out[i].AuthorisationServers = append(out[i].AuthorisationServers, s)
	}
	if out == nil {
		out = []Participant{}
	}
	return out, nil
}

// EachOrganisation calls fn for every organisation that matches the filter,
// in the filter's order, from one query (one consistent read), with the
// names of its flags. Page and Size are ignored. It stops at fn's first
// error.
func (d *DB) EachOrganisation(ctx context.Context, f OrgFilter, fn func(o Organisation, flagNames, roles []string) error) error {
	col, ok := OrgSortColumns[f.Sort]
	if !ok {
		col = OrgSortColumns["OrganisationName"]
	}
	dir := "ASC"
	if f.Desc {
		dir = "DESC"
	}
	where, args := orgWhere(f, d.engine)
	// Flag names of every organisation that has any, in one pass.
	names := map[string][]string{}
	frows, err := d.db.QueryContext(ctx, `SELECT of.organisation_id, fl.name FROM organisation_flags of JOIN flags fl ON fl.flag_id = of.flag_id ORDER BY fl.name`)
	if err != nil {
		return fmt.Errorf("store: export flags: %w", err)
	}
	for frows.Next() {
		var id, name string
		if err := frows.Scan(&id, &name); err != nil {
			frows.Close()
			return err
		}
		names[id] = append(names[id], name)
	}
	frows.Close()
	if err := frows.Err(); err != nil {
		return err
	}
	// "Domain: Role" of every Active claim, in one pass.
	roles := map[string][]string{}
	crows, err := d.db.QueryContext(ctx, `SELECT organisation_id, domain || ': ' || role FROM organisation_authority_claims WHERE status = 'Active' ORDER BY domain, role`)
	if err != nil {
		return fmt.Errorf("store: export roles: %w", err)
	}
	for crows.Next() {
		var id, role string
		if err := crows.Scan(&id, &role); err != nil {
			crows.Close()
			return err
		}
		roles[id] = append(roles[id], role)
	}
	crows.Close()
	if err := crows.Err(); err != nil {
		return err
	}
	rows, err := d.db.QueryContext(ctx, `SELECT `+orgCols+` FROM organisations WHERE `+where+` ORDER BY `+col+` `+dir+`, organisation_id `+dir, args...)
	if err != nil {
		return fmt.Errorf("store: export organisations: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		o, err := scanOrg(rows)
		if err != nil {
			return err
		}
		if err := fn(o, names[o.OrganisationID], roles[o.OrganisationID]); err != nil {
			return err
		}
	}
	return rows.Err()
}

// RowError is the error of one organisation of a batch.
type RowError = directory.RowError

// RowErrors are the problems of several rows of a batch, in row order.
type RowErrors = directory.RowErrors

// maxRowErrors is how many rows' problems a refused batch names.
const maxRowErrors = 100

// CreateOrganisations creates a batch of organisations in one transaction:
// all of them or none. Every row whose OrganisationId exists is named at
// once (RowErrors, at most maxRowErrors); any other problem stops at its
// row (a *RowError says which). Each organisation gets its audit record.
func (d *DB) CreateOrganisations(ctx context.Context, a Audit, orgs []Organisation) ([]string, error) {
	ids := make([]string, len(orgs))
	var changes []rowChange
	d.lists.beginWrite()
	err := d.tx(ctx, func(tx *sql.Tx) error {
		changes = nil
		var exist RowErrors
		for i, o := range orgs {
			if o.OrganisationID == "" || len(exist) == maxRowErrors {
				continue
			}
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM organisations WHERE organisation_id = ?`, o.OrganisationID).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				exist = append(exist, &RowError{Row: i + 1, Err: &FieldError{Field: "OrganisationId", Message: "an organisation with OrganisationId " + o.OrganisationID + " exists"}})
			}
		}
		if len(exist) > 0 {
			return exist
		}
		now := d.stamp()
		for i, o := range orgs {
			if o.OrganisationID == "" {
				o.OrganisationID = NewID()
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO organisations(`+orgCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`,
				o.OrganisationID, o.OrganisationName, o.LegalEntityName, o.RegistrationNumber, o.CountryOfRegistration,
				o.AddressLine1, o.AddressLine2, o.City, o.Postcode, o.Status, now, now); err != nil {
				return err
			}
			if err := setFlags(ctx, tx, "organisation_flags", "organisation_id", o.OrganisationID, "Organisation", o.Flags); err != nil {
				return &RowError{Row: i + 1, Err: err}
			}
			o.Flags = nonNil(o.Flags)
			row, err := listRowTx(ctx, tx, o.OrganisationID)
			if err != nil {
				return err
			}
			changes = append(changes, rowChange{new: row})
			if err := d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "create", SubjectType: "Organisation",
				SubjectID: o.OrganisationID, OrganisationID: o.OrganisationID, Summary: "imported; " + created(o)}); err != nil {
				return err
			}
			ids[i] = o.OrganisationID
		}
		return nil
	})
	d.lists.endWrite(committed(changes, err))
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// Found is what an identifier names (directory.Found).
type Found = directory.Found

// The kinds of thing FindIdentifier finds.
const (
	FoundOrganisation = directory.FoundOrganisation
	FoundApplication  = directory.FoundApplication
	FoundServer       = directory.FoundServer
	FoundCertificate  = directory.FoundCertificate
	FoundKeyMaterial  = directory.FoundKeyMaterial
	FoundContact      = directory.FoundContact
)

// FindIdentifier looks an exact identifier up across the directory: an
// OrganisationId, a SoftwareStatementId or client ID, an
// AuthorisationServerId or issuer, a certificate's or key material's kid.
// ok is false when nothing has it.
func (d *DB) FindIdentifier(ctx context.Context, q string) (Found, bool, error) {
	q = strings.TrimSpace(q)
	if q == "" || len(q) > 500 {
		return Found{}, false, nil
	}
	one := []any{q}
	issuers := []any{q, q + "/", strings.TrimSuffix(q, "/")}
	queries := []struct {
		what, sql string
		args      []any
	}{
		{FoundOrganisation, `SELECT organisation_id, organisation_id, name FROM organisations WHERE organisation_id = ?1`, one},
		{FoundApplication, `SELECT organisation_id, software_statement_id, client_name FROM software_statements WHERE software_statement_id = ?1 OR client_id = ?1`, one},
		{FoundServer, `SELECT organisation_id, authorisation_server_id, customer_friendly_name FROM authorisation_servers WHERE authorisation_server_id = ?1 OR issuer IN (?1, ?2, ?3)`, issuers},
		{FoundCertificate, `SELECT organisation_id, kid, subject_dn FROM organisation_certificates WHERE kid = ?1`, one},
		{FoundKeyMaterial, `SELECT organisation_id, key_material_id, kid FROM key_material WHERE kid = ?1 OR key_material_id = ?1`, one},
	}
	for _, k := range queries {
		var org, id, name string
		err := d.db.QueryRowContext(ctx, k.sql+` LIMIT 1`, k.args...).Scan(&org, &id, &name)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return Found{}, false, fmt.Errorf("store: find %s: %w", k.what, err)
		}
		return Found{What: k.what, Name: name, OrganisationID: org, ID: id}, true, nil
	}
	return Found{}, false, nil
}

// SameRegistration lists the other organisations registered under the
// same number in the same country (case and surrounding space ignored):
// a likely duplicate, worth a warning, not a refusal.
func (d *DB) SameRegistration(ctx context.Context, number, country, exceptID string) ([]Organisation, error) {
	number, country = strings.TrimSpace(number), strings.TrimSpace(country)
	if number == "" {
		return nil, nil
	}
	return queryList(ctx, d.db, scanOrg, `SELECT `+orgCols+` FROM organisations
		WHERE lower(trim(registration_number)) = lower(?) AND lower(trim(country)) = lower(?) AND organisation_id <> ?
		ORDER BY created_on LIMIT 5`, number, country, exceptID)
}
