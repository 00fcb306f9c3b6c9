package handlers

import (
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/pki"
	"github.com/trustframe/trustframe/views"
)

// readPEM takes the PEM from a raw PEM body, JSON {"PEM"} or a form (field
// PEM, or a file part named file).
func readPEM(w http.ResponseWriter, r *http.Request) (string, error) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/x-pem-file", "application/pkix-cert", "text/plain":
		b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
		if err != nil {
			return "", CodeTooLarge.New("the PEM is larger than 1 MiB")
		}
		return directory.CertificateText(b)
	case "multipart/form-data":
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		if err := r.ParseMultipartForm(MaxBody); err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) || errors.Is(err, multipart.ErrMessageTooLarge) {
				return "", CodeTooLarge.New("the upload is larger than 1 MiB")
			}
			return "", CodeMalformedForm.New("the upload could not be read (at most 1 MiB)")
		}
		if f, _, err := r.FormFile("file"); err == nil {
			defer f.Close()
			b, _ := io.ReadAll(io.LimitReader(f, MaxBody))
			if len(strings.TrimSpace(string(b))) > 0 {
				return directory.CertificateText(b)
			}
		}
		return r.FormValue("PEM"), nil
	default:
		var in struct {
			PEM string `json:"PEM" text:"raw"`
		}
		if err := Decode(w, r, &in); err != nil {
			return "", err
		}
		return in.PEM, nil
	}
}

// Upload is POST …/certificates/{type}: check and store a certificate.
func (h *Certificates) Upload(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	typ := PathParam(r, "certType")
	if typ == pki.UseSeal && h.Issuing.CA.On(r.Context()) {
		// The directory's CA issues the organisation's seal from a CSR
		// (docs/design.md §18).
		h.issueSeal(w, r, o.OrganisationID)
		return
	}
	pemText, err := readPEM(w, r)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	c, err := h.Certs.Upload(r.Context(), h.actor(r), o.OrganisationID, typ, pemText)
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "The " + typ + " certificate " + c.Kid + " was uploaded.", Page: paths.OrganisationTab(o.OrganisationID, "certificates"),
			Status: http.StatusCreated, Body: c, ETag: c, Location: paths.API(paths.Certificate(o.OrganisationID, c.Kid))})
	case shownInPage(r, err):
		e := AsError(err)
		h.renderWizard(w, r, e.Status, o, views.CertWizard{Step: "upload", Type: typ, PEM: shownPEM(pemText, err), Error: refusalText(e)})
	default:
		WriteError(w, r, err)
	}
}

// shownPEM is what a refused upload form shows in its PEM field: what was
// sent, but nothing when it was refused for holding a private key.
func shownPEM(pemText string, err error) string {
	if errors.Is(err, directory.ErrHoldsPrivateKey) {
		return ""
	}
	return pemText
}
