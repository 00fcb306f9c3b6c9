package directory

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/trustframe/trustframe/formats"
	"github.com/trustframe/trustframe/lifecycle"
)

// The codes of a refused import file.
const (
	CodeMalformedCSV Code = "malformed_csv" // the file cannot be read as an import (400)
	CodeTooLarge     Code = "too_large"     // the file is over a limit of its size (413)
)

// problemInvalid is the code of a problem in one column of one row.
const problemInvalid = "invalid"

// The limits of an organisation import. Each is checked as the file
// arrives, so that nothing over them is held in memory.
const (
	// MaxImport is the largest organisation import file.
	MaxImport = 10 << 20
	// MaxImportRows is the most organisations one import creates.
	MaxImportRows = 10_000
	// MaxImportHeader is the longest header row, in bytes: the export's is
	// under 200.
	MaxImportHeader = 4 << 10
	// MaxImportLine is the longest line of an import, in bytes: a row of
	// the export at the field limits (50 flags of 100 characters) is under
	// 32 KiB.
	MaxImportLine = 64 << 10
	// maxImportProblems is how many problems a refusal lists at most, so
	// that it stays short enough to read.
	maxImportProblems = 100
)

// ImportColumns are the columns an import reads: those of the export.
// Roles, CreatedOn and UpdatedOn are accepted and ignored, so an export of
// one directory imports into another (roles are authority claims, each
// recorded on its own with its authority).
var ImportColumns = []string{"OrganisationId", "OrganisationName", "LegalEntityName", "RegistrationNumber", "CountryOfRegistration",
	"AddressLine1", "AddressLine2", "City", "Postcode", "Status", "Flags", "Roles", "CreatedOn", "UpdatedOn"}

// RowError is the error of one organisation of a batch (1-based row of the
// file it came from, header excluded).
type RowError struct {
	Row int
	Err error
}

func (e *RowError) Error() string { return fmt.Sprintf("row %d: %v", e.Row, e.Err) }
func (e *RowError) Unwrap() error { return e.Err }

// RowErrors are the problems of several rows of a batch, in row order.
type RowErrors []*RowError

func (e RowErrors) Error() string {
	msgs := make([]string, len(e))
	for i, r := range e {
		msgs[i] = r.Error()
	}
	return strings.Join(msgs, "; ")
}

// ImportStore is what the import needs of the database: the organisation
// flags, to read the Flags column by name, and a write of every
// organisation in one transaction that names each row whose
// OrganisationId exists (RowErrors) or the row it stopped at (*RowError).
type ImportStore interface {
	ListFlags(ctx context.Context, typ string) ([]Flag, error)
	CreateOrganisations(ctx context.Context, a Actor, orgs []Organisation) ([]string, error)
}

// Imports is the use case of the organisation import (docs/design.md §5,
// CSV).
type Imports struct {
	Store ImportStore
	Vocab lifecycle.Vocabulary
}

// Organisations creates the organisations of a CSV file with the columns
// of the export, read as it arrives: every row is checked first as the New
// organisation form would, and either all are created, in one transaction,
// or none. A refusal names every problem (up to 100), each by its row and
// column. It returns the ids created, in row order.
func (s *Imports) Organisations(ctx context.Context, a Actor, file io.Reader) ([]string, error) {
	orgs, err := s.Parse(ctx, file)
	if err != nil {
		return nil, err
	}
	ids, err := s.Store.CreateOrganisations(ctx, a, orgs)
	return ids, rowsRefused(err)
}

// rowsRefused is the refusal of the rows the store refused by field (an
// OrganisationId that exists, a flag); any other error is returned as it
// is.
func rowsRefused(err error) error {
	var res RowErrors
	var re *RowError
	if !errors.As(err, &res) && errors.As(err, &re) {
		res = RowErrors{re}
	}
	problems := importRefusal()
	for _, re := range res {
		var fe *FieldError
		if !errors.As(re, &fe) {
			return err
		}
		problems.More = append(problems.More, Problem{Field: rowField(re.Row, fe.Field), Code: problemInvalid, Message: rowProblem(re.Row, fe.Field, fe.Message+".")})
	}
	if len(problems.More) == 0 {
		return err
	}
	return problems
}

func importRefusal() *Error {
	return &Error{Code: CodeInvalid, Message: "Nothing was imported: some rows need attention."}
}

// Parse turns the CSV into organisations, checking every row as the New
// organisation form would; it returns every problem it finds (up to 100),
// each naming its row and column.
func (s *Imports) Parse(ctx context.Context, file io.Reader) ([]Organisation, error) {
	cr, col, err := readImportHeader(&importReader{r: file})
	if err != nil {
		return nil, err
	}
	flags, err := s.Store.ListFlags(ctx, "Organisation")
	if err != nil {
		return nil, err
	}
	flagByName := map[string]string{}
	for _, f := range flags {
		flagByName[f.Name] = f.FlagID
	}
	problems := importRefusal()
	var orgs []Organisation
	seenID := map[string]int{}
	for row := 1; ; row++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if e := ImportReadError(err); e != nil {
			return nil, e
		}
		if err != nil {
			return nil, &Error{Code: CodeMalformedCSV, Message: "the file is not valid CSV: " + csvMistake(err, len(col))}
		}
		if row > MaxImportRows {
			return nil, &Error{Code: CodeTooLarge, Message: fmt.Sprintf("one import creates at most %d organisations", MaxImportRows)}
		}
		o := s.importRow(row, rec, col, flagByName, problems)
		if o.OrganisationID != "" {
			if first, dup := seenID[o.OrganisationID]; dup {
				addRowProblem(problems, row, "OrganisationId", "the same OrganisationId as row "+rowLine(first)+".")
			}
			seenID[o.OrganisationID] = row
		}
		orgs = append(orgs, o)
	}
	if len(problems.More) > 0 {
		return nil, problems
	}
	if len(orgs) == 0 {
		return nil, &Error{Code: CodeMalformedCSV, Message: "the file has a header but no organisations"}
	}
	return orgs, nil
}

// byteOrderMark starts a file some spreadsheets save as UTF-8.
const byteOrderMark = "\ufeff"

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
	if e := ImportReadError(err); e != nil {
		return nil, nil, e
	}
	if err != nil {
		return nil, nil, malformed("the file has no CSV header row")
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
	if len(header) > len(ImportColumns) {
		return nil, nil, malformed(fmt.Sprintf("the header row has %d columns; an import has at most %d, those of the export: %s", len(header), len(ImportColumns), strings.Join(ImportColumns, ", ")))
	}
	col := map[string]int{}
	for i, name := range header {
		name = strings.TrimSpace(name)
		if !slices.Contains(ImportColumns, name) {
			return nil, nil, malformed(fmt.Sprintf("unknown column %q; the columns are those of the export: %s", name, strings.Join(ImportColumns, ", ")))
		}
		if _, dup := col[name]; dup {
			return nil, nil, malformed(fmt.Sprintf("column %q appears twice", name))
		}
		col[name] = i
	}
	for _, need := range []string{"OrganisationName", "RegistrationNumber", "CountryOfRegistration"} {
		if _, ok := col[need]; !ok {
			return nil, nil, malformed("the header has no " + need + " column")
		}
	}
	return cr, col, nil
}

func malformed(msg string) *Error { return &Error{Code: CodeMalformedCSV, Message: msg} }

// semicolonHeader reports whether a one-column header is the export's
// columns separated by semicolons.
func semicolonHeader(h string) bool {
	names := strings.Split(h, ";")
	if len(names) < 2 {
		return false
	}
	for _, n := range names {
		if !slices.Contains(ImportColumns, strings.TrimSpace(n)) {
			return false
		}
	}
	return true
}

// importRow turns data row number row into an organisation, adding each
// problem it has to problems: text that breaks the text rule, a flag that
// does not exist, and whatever the Add organisation form would refuse.
func (s *Imports) importRow(row int, rec []string, col map[string]int, flagByName map[string]string, problems *Error) Organisation {
	// As in a JSON body or a form (docs/design.md §4): every column is
	// one line of text.
	for _, name := range ImportColumns {
		i, ok := col[name]
		switch {
		case !ok || i >= len(rec):
		case strings.IndexByte(rec[i], 0) >= 0 || !utf8.ValidString(rec[i]):
			addRowProblem(problems, row, name, "contains a NUL character or bytes that are not UTF-8.")
		case RefusedText(strings.TrimSpace(rec[i]), TextLine):
			addRowProblem(problems, row, name, TextMessage(name, TextLine, strings.TrimSpace(rec[i])))
		}
	}
	get := func(name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return Unguard(strings.TrimSpace(rec[i]))
		}
		return ""
	}
	// A UUID in capitals is the same UUID (RFC 9562): a spreadsheet may
	// write an export's ids so. Read in lower case, as ids are stored, it
	// names the same organisation (docs/design.md §5, CSV).
	id := get("OrganisationId")
	if formats.ValidUUID(strings.ToLower(id)) {
		id = strings.ToLower(id)
	}
	o := Organisation{OrganisationID: id, OrganisationName: get("OrganisationName"), LegalEntityName: get("LegalEntityName"),
		RegistrationNumber: get("RegistrationNumber"), CountryOfRegistration: get("CountryOfRegistration"), AddressLine1: get("AddressLine1"),
		AddressLine2: get("AddressLine2"), City: get("City"), Postcode: get("Postcode"), Status: get("Status")}
	for _, name := range strings.Split(get("Flags"), ";") {
		name = Unguard(strings.TrimSpace(name))
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
	errs := o.Validate(true, s.Vocab)
	for _, k := range errs.Names() {
		addRowProblem(problems, row, k, errs[k])
	}
	return o
}

// addRowProblem adds the problem msg in column field of data row number
// row to problems; past maxImportProblems it is dropped.
func addRowProblem(problems *Error, row int, field, msg string) {
	if len(problems.More) < maxImportProblems {
		problems.More = append(problems.More, Problem{Field: rowField(row, field), Code: problemInvalid, Message: rowProblem(row, field, msg)})
	}
}

// rowField names column field of data row number row as the API's problem
// body does: "rows[3].City".
func rowField(row int, field string) string {
	return "rows[" + strconv.Itoa(row) + "]." + field
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

// NeedsFormulaGuard reports whether a spreadsheet could read s as a
// formula (CSV injection): text that starts with = + - @ or a control
// character, also when white space (spaces, tabs, newlines, non-breaking
// and other Unicode spaces) or invisible format characters (zero-width
// space, byte order mark) come first, which spreadsheets skip. The export
// puts an apostrophe before such a cell.
func NeedsFormulaGuard(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '\t' || s[0] == '\r' {
		return true
	}
	i := strings.IndexFunc(s, func(r rune) bool {
		return !unicode.IsSpace(r) && !unicode.IsControl(r) && !unicode.Is(unicode.Cf, r)
	})
	return i >= 0 && strings.ContainsRune("=+-@＝＋－＠", []rune(s[i:])[0])
}

// Unguard takes off the apostrophe the export puts before a cell a
// spreadsheet could read as a formula: "'=x" was "=x", "' =x" was " =x".
// An apostrophe before anything else was written by someone and stays.
func Unguard(s string) string {
	if len(s) > 1 && s[0] == '\'' && NeedsFormulaGuard(s[1:]) {
		return s[1:]
	}
	return s
}

// ErrImportTooBig is a file over MaxImport; a caller whose own reader
// stops at a limit of the upload returns it from Read, so that the import
// refuses the file as too large.
var ErrImportTooBig = errors.New("directory: the import file is over its limit")

var errImportLine = errors.New("directory: a line of the import file is over its limit")

// importReader reads an import file as it arrives and stops with an error
// at its limits, before the CSV reader holds what is over them: more than
// MaxImport bytes in all, a header line over MaxImportHeader bytes, any
// other line over MaxImportLine.
type importReader struct {
	r     io.Reader
	total int
	line  int // bytes read of the current line
	lines int // lines ended
}

func (ir *importReader) Read(p []byte) (int, error) {
	n, err := ir.r.Read(p)
	if ir.total += n; ir.total > MaxImport {
		return n, ErrImportTooBig
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
		return MaxImportHeader
	}
	return MaxImportLine
}

// csvMistake says in plain words where a file is not CSV (err of the CSV
// reader; columns: the header's count), without the reader's own text.
func csvMistake(err error, columns int) string {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return "it cannot be read"
	}
	at := fmt.Sprintf("line %d", pe.Line)
	switch {
	case errors.Is(pe.Err, csv.ErrFieldCount):
		return fmt.Sprintf("%s has another number of columns than the header row (%d); a value holding the separator goes in double quotes", at, columns)
	case errors.Is(pe.Err, csv.ErrBareQuote):
		return fmt.Sprintf("%s, character %d: a double quote inside a value that does not start with one; put the value in double quotes and write each quote in it twice", at, pe.Column)
	case errors.Is(pe.Err, csv.ErrQuote):
		if pe.StartLine != pe.Line {
			at = fmt.Sprintf("the value that starts on line %d", pe.StartLine)
		}
		return fmt.Sprintf("%s: a double quote is not closed, or a quoted value goes on after its closing quote; write each quote inside a quoted value twice", at)
	}
	return at + " cannot be read as CSV"
}

// ImportReadError is the refusal of a file read up to one of its limits,
// nil for any other error.
func ImportReadError(err error) error {
	switch {
	case errors.Is(err, ErrImportTooBig):
		return &Error{Code: CodeTooLarge, Message: "an import file is at most 10 MiB"}
	case errors.Is(err, errImportLine):
		return malformed(fmt.Sprintf("a line of the file is longer than its limit: the header row at most %d bytes, any other line at most %d bytes (64 KiB)", MaxImportHeader, MaxImportLine))
	}
	return nil
}
