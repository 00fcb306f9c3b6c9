package handlers

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

const (
	// MaxImport is the largest organisation import file.
	MaxImport = 10 << 20
	// MaxImportRows is the most organisations one import creates.
	MaxImportRows = 10_000
	// maxImportErrors is how many problems an answer lists at most.
	maxImportErrors = 100
	// maxImportHeader is the longest header row, in bytes: the export's is
	// under 200.
	maxImportHeader = 4 << 10
	// maxImportLine is the longest line of an import, in bytes: a row of
	// the export at the field limits (50 flags of 100 characters) is under
	// 32 KiB.
	maxImportLine = 64 << 10
)

// maxImportColumns is the most columns a header may name: those of the
// export, each once.
var maxImportColumns = len(importColumns)

// importColumns are the columns an import reads: those of the export.
// Roles, CreatedOn and UpdatedOn are accepted and ignored, so an export of
// one directory imports into another (roles are authority claims, each
// recorded on its own with its authority).
var importColumns = []string{"OrganisationId", "OrganisationName", "LegalEntityName", "RegistrationNumber", "CountryOfRegistration",
	"AddressLine1", "AddressLine2", "City", "Postcode", "Status", "Flags", "Roles", "CreatedOn", "UpdatedOn"}

// unguard undoes the export's formula guard (csvCell): "'=x" was "=x",
// "' =x" was " =x".
func unguard(s string) string {
	if len(s) > 1 && s[0] == '\'' && needsGuard(s[1:]) {
		return s[1:]
	}
	return s
}

// readImport takes the CSV from a text/csv body or the part "file" of a
// form upload, to be read as it arrives (importReader).
func readImport(w http.ResponseWriter, r *http.Request) (io.Reader, error) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	r.Body = http.MaxBytesReader(w, r.Body, MaxImport+1<<20)
	switch ct {
	case "text/csv", "text/plain":
		return &importReader{r: r.Body}, nil
	case "multipart/form-data":
		mr, err := r.MultipartReader()
		if err != nil {
			return nil, CodeMalformedForm.New("the upload cannot be read")
		}
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				return nil, Validation(map[string]string{"file": "Choose a CSV file to import."})
			}
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return nil, importTooBig()
			}
			if err != nil {
				return nil, CodeMalformedForm.New("the upload cannot be read")
			}
			if part.FormName() != "file" {
				part.Close()
				continue
			}
			// A file of white space only, as a browser sends when no file
			// was chosen, is no file.
			br := bufio.NewReader(&importReader{r: part})
			start, err := br.Peek(4096)
			if len(bytes.TrimSpace(start)) == 0 && err != nil {
				if e := importReadError(err); e != nil {
					return nil, e
				}
				return nil, Validation(map[string]string{"file": "Choose a CSV file to import."})
			}
			return br, nil
		}
	}
	return nil, CodeUnsupportedMediaType.New("send text/csv, or multipart/form-data with a part named file")
}

// byteOrderMark starts a file some spreadsheets save as UTF-8.
const byteOrderMark = "\ufeff"

func importTooBig() *Error { return CodeTooLarge.New("an import file is at most 10 MiB") }

// importReader reads an import file as it arrives and stops with an error
// at its limits, before the CSV reader holds what is over them: more than
// MaxImport bytes in all, a header line over maxImportHeader bytes, any
// other line over maxImportLine.
type importReader struct {
	r     io.Reader
	total int
	line  int // bytes read of the current line
	lines int // lines ended
}

var (
	errImportTooBig = errors.New("handlers: the import file is over its limit")
	errImportLine   = errors.New("handlers: a line of the import file is over its limit")
)

func (ir *importReader) Read(p []byte) (int, error) {
	n, err := ir.r.Read(p)
	if ir.total += n; ir.total > MaxImport {
		return n, errImportTooBig
	}
	for rest := p[:n]; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			ir.line += len(rest)
			break
		}
		ir.line += i
		if ir.line > ir.lineLimit() {
			return n, errImportLine
		}
		ir.line, ir.lines, rest = 0, ir.lines+1, rest[i+1:]
	}
	if ir.line > ir.lineLimit() {
		return n, errImportLine
	}
	return n, err
}

func (ir *importReader) lineLimit() int {
	if ir.lines == 0 {
		return maxImportHeader
	}
	return maxImportLine
}

// importReadError is the refusal of a file importReader stopped reading
// (or the body under it), nil for any other error.
func importReadError(err error) *Error {
	var mbe *http.MaxBytesError
	switch {
	case errors.Is(err, errImportTooBig) || errors.As(err, &mbe):
		return importTooBig()
	case errors.Is(err, errImportLine):
		return CodeMalformedCSV.New(fmt.Sprintf("a line of the file is longer than its limit: the header row at most %d bytes, any other line at most %d bytes (64 KiB)", maxImportHeader, maxImportLine))
	}
	return nil
}

// semicolonHeader reports whether a one-column header is the export's
// columns separated by semicolons.
func semicolonHeader(h string) bool {
	names := strings.Split(h, ";")
	if len(names) < 2 {
		return false
	}
	for _, n := range names {
		if !slices.Contains(importColumns, strings.TrimSpace(n)) {
			return false
		}
	}
	return true
}

// rowLine is data row n (rows[n] in the problem's field) and the line of
// the file it is on — the row number a spreadsheet shows, the header being
// line 1: "3 (line 4 of the file)".
func rowLine(n int) string {
	return strconv.Itoa(n) + " (line " + strconv.Itoa(n+1) + " of the file)"
}

// rowProblem is the message of a problem in a row's column: the row, its
// line, and the column when the message does not name it already.
func rowProblem(row int, column, msg string) string {
	at := "Row " + rowLine(row)
	if !strings.Contains(msg, column) {
		at += ", column " + column
	}
	return at + ": " + msg
}

// parseImport turns the CSV into organisations, checking every row as the
// New organisation form would; it returns every problem it finds (up to
// maxImportErrors), each naming its row and column.
func (h *Organisations) parseImport(r *http.Request, file io.Reader) ([]store.Organisation, error) {
	cr, col, err := readImportHeader(file)
	if err != nil {
		return nil, err
	}
	flags, err := h.Store.ListFlags(r.Context(), "Organisation")
	if err != nil {
		return nil, err
	}
	flagByName := map[string]string{}
	for _, f := range flags {
		flagByName[f.Name] = f.FlagID
	}

	problems := CodeValidationFailed.New("Nothing was imported: some rows need attention.")
	var orgs []store.Organisation
	seenID := map[string]int{}
	for row := 1; ; row++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if e := importReadError(err); e != nil {
			return nil, e
		}
		if err != nil {
			return nil, CodeMalformedCSV.New("the file is not valid CSV: " + err.Error())
		}
		if row > MaxImportRows {
			return nil, CodeTooLarge.New(fmt.Sprintf("one import creates at most %d organisations", MaxImportRows))
		}
		o := h.importRow(row, rec, col, flagByName, problems)
		if o.OrganisationID != "" {
			if first, dup := seenID[o.OrganisationID]; dup {
				addRowProblem(problems, row, "OrganisationId", "the same OrganisationId as row "+rowLine(first)+".")
			}
			seenID[o.OrganisationID] = row
		}
		orgs = append(orgs, o)
	}
	if len(problems.Fields) > 0 {
		return nil, problems
	}
	if len(orgs) == 0 {
		return nil, CodeMalformedCSV.New("the file has a header but no organisations")
	}
	return orgs, nil
}

// readImportHeader reads the header row and returns the reader of the rows
// after it and the index of each column by name. It refuses a file without
// a header, an unknown or repeated column, or one that lacks a column every
// organisation needs.
func readImportHeader(file io.Reader) (*csv.Reader, map[string]int, error) {
	br := bufio.NewReader(file)
	if start, _ := br.Peek(len(byteOrderMark)); string(start) == byteOrderMark {
		br.Discard(len(byteOrderMark))
	}
	cr := csv.NewReader(br)
	cr.ReuseRecord = true // each row is copied into its organisation
	header, err := cr.Read()
	if e := importReadError(err); e != nil {
		return nil, nil, e
	}
	if err != nil {
		return nil, nil, CodeMalformedCSV.New("the file has no CSV header row")
	}
	header = slices.Clone(header)
	if len(header) == 1 && semicolonHeader(header[0]) {
		// Saved where the decimal separator is a comma (Excel in much of
		// Europe and Brazil): the columns are separated by semicolons
		// (docs/decisions.md). The header's names hold no quotes, so it
		// is split as it is; the rows are read with the semicolon.
		header = strings.Split(header[0], ";")
		cr.Comma = ';'
		cr.FieldsPerRecord = len(header)
	}
	if len(header) > maxImportColumns {
		return nil, nil, CodeMalformedCSV.New(fmt.Sprintf("the header row has %d columns; an import has at most %d, those of the export: %s", len(header), maxImportColumns, strings.Join(importColumns, ", ")))
	}
	col := map[string]int{}
	for i, name := range header {
		name = strings.TrimSpace(name)
		if !slices.Contains(importColumns, name) {
			return nil, nil, CodeMalformedCSV.New(fmt.Sprintf("unknown column %q; the columns are those of the export: %s", name, strings.Join(importColumns, ", ")))
		}
		if _, dup := col[name]; dup {
			return nil, nil, CodeMalformedCSV.New(fmt.Sprintf("column %q appears twice", name))
		}
		col[name] = i
	}
	for _, need := range []string{"OrganisationName", "RegistrationNumber", "CountryOfRegistration"} {
		if _, ok := col[need]; !ok {
			return nil, nil, CodeMalformedCSV.New("the header has no " + need + " column")
		}
	}
	return cr, col, nil
}

// importRow turns data row number row into an organisation, adding each
// problem it has to problems: text that breaks the text rule, a flag that
// does not exist, and whatever the New organisation form would refuse.
func (h *Organisations) importRow(row int, rec []string, col map[string]int, flagByName map[string]string, problems *Error) store.Organisation {
	// As in a JSON body or a form (docs/design.md §4): every column is
	// one line of text (the text rule of decode.go).
	for _, name := range importColumns {
		i, ok := col[name]
		switch {
		case !ok || i >= len(rec):
		case strings.IndexByte(rec[i], 0) >= 0 || !utf8.ValidString(rec[i]):
			addRowProblem(problems, row, name, "contains a NUL character or bytes that are not UTF-8.")
		case refusedText(strings.TrimSpace(rec[i]), textLine):
			addRowProblem(problems, row, name, textMessage(name, textLine, strings.TrimSpace(rec[i])))
		}
	}
	get := func(name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return unguard(strings.TrimSpace(rec[i]))
		}
		return ""
	}
	// A UUID in capitals is the same UUID (RFC 9562): a spreadsheet may
	// write an export's ids so. Read in lower case, as ids are kept, it
	// names the same organisation (docs/design.md §5, CSV).
	id := get("OrganisationId")
	if ValidUUID(strings.ToLower(id)) {
		id = strings.ToLower(id)
	}
	o := store.Organisation{OrganisationID: id, OrganisationName: get("OrganisationName"), LegalEntityName: get("LegalEntityName"),
		RegistrationNumber: get("RegistrationNumber"), CountryOfRegistration: get("CountryOfRegistration"), AddressLine1: get("AddressLine1"),
		AddressLine2: get("AddressLine2"), City: get("City"), Postcode: get("Postcode"), Status: get("Status")}
	for _, name := range strings.Split(get("Flags"), ";") {
		name = unguard(strings.TrimSpace(name))
		if name == "" {
			continue
		}
		id, ok := flagByName[name]
		if !ok {
			addRowProblem(problems, row, "Flags", "there is no organisation flag named "+strconv.Quote(name)+".")
			continue
		}
		o.Flags = append(o.Flags, id)
	}
	errs := o.Validate(true, h.Vocab)
	for _, k := range errs.Names() {
		addRowProblem(problems, row, k, errs[k])
	}
	return o
}

// addRowProblem adds the problem msg in column field of data row number
// row to problems; past maxImportErrors it is dropped, so that the answer
// stays short enough to read.
func addRowProblem(problems *Error, row int, field, msg string) {
	if len(problems.Fields) < maxImportErrors {
		problems.Fields = append(problems.Fields, FieldError{Code: FieldInvalid, Field: "rows[" + strconv.Itoa(row) + "]." + field, Message: rowProblem(row, field, msg)})
	}
}

// ImportForm is the page to upload an organisation CSV.
func (h *Organisations) ImportForm(w http.ResponseWriter, r *http.Request) {
	h.importPage(w, r, http.StatusOK, nil)
}

func (h *Organisations) importPage(w http.ResponseWriter, r *http.Request, status int, e *Error) {
	p := views.ImportPage{Columns: importColumns, MaxRows: MaxImportRows}
	if e != nil {
		p.Message = e.Message
		for _, f := range e.Fields {
			p.Problems = append(p.Problems, f.Message)
		}
	}
	Render(w, r, status, views.ImportOrganisations(h.Shell(r, "Import organisations", "organisations", h.orgCrumbs(nil, "Import")...), p))
}

// ImportOrganisations creates organisations from a CSV file with the
// columns of the export (POST /organisations/import, text/csv or a form
// upload): every row is checked first, and either all are created, in one
// transaction, or none.
func (h *Organisations) ImportOrganisations(w http.ResponseWriter, r *http.Request) {
	fail := func(err error) {
		h.Saved(w, r, Saved{Err: err, Again: anyAgain(func(e *Error) { h.importPage(w, r, e.Status, e) })})
	}
	file, err := readImport(w, r)
	if err != nil {
		fail(err)
		return
	}
	orgs, err := h.parseImport(r, file)
	if err != nil {
		fail(err)
		return
	}
	ids, err := h.Store.CreateOrganisations(r.Context(), h.actor(r), orgs)
	if err != nil {
		var res store.RowErrors
		var re *store.RowError
		if !errors.As(err, &res) && errors.As(err, &re) {
			res = store.RowErrors{re}
		}
		var fields []FieldError
		for _, re := range res {
			var fe *store.FieldError
			if errors.As(re, &fe) {
				fields = append(fields, FieldError{Code: FieldInvalid, Field: "rows[" + strconv.Itoa(re.Row) + "]." + fe.Field, Message: rowProblem(re.Row, fe.Field, fe.Message+".")})
			}
		}
		if len(fields) > 0 && len(fields) == len(res) {
			err = CodeValidationFailed.New("Nothing was imported: some rows need attention.").WithFields(fields...)
		}
		fail(err)
		return
	}
	msg := strconv.Itoa(len(ids)) + " organisations were imported."
	if len(ids) == 1 {
		msg = "1 organisation was imported."
	}
	h.Saved(w, r, Saved{Flash: msg, Page: paths.Organisations() + "?sort=CreatedOn,desc", Status: http.StatusCreated, Body: map[string]any{"Created": len(ids), "OrganisationIds": ids}})
}
