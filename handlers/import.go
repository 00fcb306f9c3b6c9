package handlers

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/formats"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/views"
)

// Imports serves the organisation import: its page and the upload.
type Imports struct {
	*Org
	Import *directory.Imports
}

// ImportForm is the page to upload an organisation CSV.
func (h *Imports) ImportForm(w http.ResponseWriter, r *http.Request) {
	h.importPage(w, r, http.StatusOK, nil)
}

// importPage shows the page with the refusal e, if any: its message and
// each of its problems.
func (h *Imports) importPage(w http.ResponseWriter, r *http.Request, status int, e *Error) {
	p := views.ImportPage{Columns: directory.ImportColumns, MaxRows: directory.MaxImportRows}
	if e != nil {
		p.Message = e.Message
		for _, f := range e.Fields {
			p.Problems = append(p.Problems, f.Message)
		}
	}
	Render(w, r, status, views.ImportOrganisations(h.Shell(r, "Import organisations", "organisations", views.OrgCrumbs(nil, "Import")...), p))
}

// ImportOrganisations creates organisations from a CSV file with the
// columns of the export (POST /organisations/import, text/csv or a form
// upload): every row is checked first, and either all are created, in one
// transaction, or none (directory.Imports). The browser sees every
// refusal on the import page.
func (h *Imports) ImportOrganisations(w http.ResponseWriter, r *http.Request) {
	file, err := readImport(w, r)
	var ids []string
	if err == nil {
		ids, err = h.Import.Organisations(r.Context(), h.actor(r), file)
	}
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: formats.Count(len(ids), "organisation was", "organisations were") + " imported.", Page: paths.Organisations() + "?sort=CreatedOn,desc", Status: http.StatusCreated, Body: map[string]any{"Created": len(ids), "OrganisationIds": ids}})
	case !WantsJSON(r) && AsError(err).Status < 500:
		e := AsError(err)
		h.importPage(w, r, e.Status, e)
	default:
		WriteError(w, r, err)
	}
}

// readImport takes the CSV from a text/csv body or the part "file" of a
// form upload, to be read as it arrives.
func readImport(w http.ResponseWriter, r *http.Request) (io.Reader, error) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	r.Body = http.MaxBytesReader(w, r.Body, directory.MaxImport+1<<20)
	switch ct {
	case "text/csv", "text/plain":
		return upload{r.Body}, nil
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
			if err != nil {
				if e := directory.ImportReadError(bodyLimit(err)); e != nil {
					return nil, e
				}
				return nil, CodeMalformedForm.New("the upload cannot be read")
			}
			if part.FormName() != "file" {
				part.Close()
				continue
			}
			// A file of white space only, as a browser sends when no file
			// was chosen, is no file.
			br := bufio.NewReader(upload{part})
			start, err := br.Peek(4096)
			if len(bytes.TrimSpace(start)) == 0 && err != nil {
				if e := directory.ImportReadError(err); e != nil {
					return nil, e
				}
				return nil, Validation(map[string]string{"file": "Choose a CSV file to import."})
			}
			return br, nil
		}
	}
	return nil, CodeUnsupportedMediaType.New("send text/csv, or multipart/form-data with a part named file")
}

// upload reads the body of an import: the body's own limit is the
// import's refusal of a file too large.
type upload struct{ r io.Reader }

func (u upload) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	return n, bodyLimit(err)
}

// bodyLimit is directory.ErrImportTooBig for the error of a body read up
// to its limit, err for any other.
func bodyLimit(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return directory.ErrImportTooBig
	}
	return err
}
