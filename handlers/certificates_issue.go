package handlers

import (
	"encoding/json"
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

// pemType is the media type of PEM certificates and CSRs.
const pemType = "application/x-pem-file"

// readCSR takes the CSR from a raw body (application/pkcs10 DER,
// application/x-pem-file PEM), JSON {"CSR": PEM}, or a console form
// (field CSR, or a file part named file; the type in Type).
func readCSR(w http.ResponseWriter, r *http.Request) (csr []byte, typ string, err error) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/pkcs10", pemType, "text/plain":
		b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
		if err != nil {
			return nil, "", CodeTooLarge.New("the CSR is larger than 1 MiB")
		}
		return b, "", nil
	case "multipart/form-data":
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		if err := r.ParseMultipartForm(MaxBody); err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) || errors.Is(err, multipart.ErrMessageTooLarge) {
				return nil, "", CodeTooLarge.New("the upload is larger than 1 MiB")
			}
			return nil, "", CodeMalformedForm.New("the upload could not be read (at most 1 MiB)")
		}
		typ = r.FormValue("Type")
		if f, _, err := r.FormFile("file"); err == nil {
			defer f.Close()
			b, _ := io.ReadAll(io.LimitReader(f, MaxBody))
			if len(strings.TrimSpace(string(b))) > 0 {
				return b, typ, nil
			}
		}
		return []byte(r.FormValue("CSR")), typ, nil
	default:
		var api struct {
			CSR string `json:"CSR" text:"raw"`
		}
		var form struct {
			CSR  string `json:"CSR" text:"raw"`
			Type string `json:"Type"`
		}
		isAPI, err := DecodeAs(w, r, &api, &form)
		if isAPI {
			return []byte(api.CSR), "", err
		}
		return []byte(form.CSR), form.Type, err
	}
}

// IssueForApp is POST …/softwarestatements/{appID}/certificates/{certType}
// (the console's form names the type in Type): a certificate issued by
// the directory's CA from a CSR, 201.
func (h *Certificates) IssueForApp(w http.ResponseWriter, r *http.Request) {
	orgID, appID := PathParam(r, "orgID"), PathParam(r, "appID")
	csr, typ, err := readCSR(w, r)
	if t := PathParam(r, "certType"); t != "" {
		typ = t
	}
	if err == nil {
		var c directory.Issued
		c, err = h.Issuing.ForApplication(r.Context(), h.actor(r), orgID, appID, typ, csr)
		if err == nil {
			h.issued(w, r, c, paths.Application(orgID, appID)+"/certificates")
			return
		}
	}
	if e, ok := refusedHere(r, err); ok {
		h.appCertsPage(w, r, e.Status, views.IssueForm{Type: typ, CSR: shownCSR(csr), Error: refusalText(e)})
		return
	}
	WriteError(w, r, err)
}

// issueSeal is POST …/certificates/seal while the CA is on: the
// organisation's seal certificate issued from a CSR.
func (h *Certificates) issueSeal(w http.ResponseWriter, r *http.Request, orgID string) {
	csr, _, err := readCSR(w, r)
	if err == nil {
		var c directory.Issued
		c, err = h.Issuing.ForOrganisation(r.Context(), h.actor(r), orgID, csr)
		if err == nil {
			h.issued(w, r, c, paths.OrganisationTab(orgID, "certificates"))
			return
		}
	}
	if e, ok := refusedHere(r, err); ok {
		h.Flash.Refuse(r.Context(), "No seal certificate issued: "+refusalText(e))
		Redirect(w, r, paths.OrganisationTab(orgID, "certificates"))
		return
	}
	WriteError(w, r, err)
}

// issued answers an issued certificate: 201 with its JSON, or with
// Accept: application/x-pem-file the PEM chain (leaf, then CA); the
// browser goes to page.
func (h *Certificates) issued(w http.ResponseWriter, r *http.Request, c directory.Issued, page string) {
	// An application's certificate is read under its application, where
	// the application's own token reaches it (docs/design.md §20).
	loc := paths.API(paths.Certificate(c.OrganisationID, c.Kid))
	if c.SoftwareStatementID != "" {
		loc = paths.API(paths.AppCertificate(c.OrganisationID, c.SoftwareStatementID, c.Kid))
	}
	if IsAPI(r) && bestAccept(r.Header.Get("Accept"), "application/json", pemType) == pemType {
		Vary(w)
		w.Header().Set("Location", loc)
		w.Header().Set("Content-Type", pemType)
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, c.Chain)
		return
	}
	h.Saved(w, r, Saved{Flash: "The " + c.OrganisationCertificateType + " certificate " + c.Kid + " was issued.", Page: page,
		Status: http.StatusCreated, Body: c, ETag: c.Certificate, Location: loc})
}

// shownCSR is what a refused form shows in its CSR field: the text sent,
// nothing when it was not text (a DER file).
func shownCSR(b []byte) string {
	if strings.Contains(string(b), "-----BEGIN") {
		return strings.ToValidUTF8(strings.ReplaceAll(string(b), "\x00", ""), "")
	}
	return ""
}

// AppList is GET …/softwarestatements/{appID}/certificates: the
// certificates the CA issued for the application; in the console, its
// Certificates page with the issuing form.
func (h *Certificates) AppList(w http.ResponseWriter, r *http.Request) {
	if !WantsJSON(r) {
		h.appCertsPage(w, r, http.StatusOK, views.IssueForm{Type: pki.UseTransport})
		return
	}
	certs, err := h.Issuing.ApplicationCertificates(r.Context(), PathParam(r, "orgID"), PathParam(r, "appID"))
	if err != nil {
		WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, certs)
}

// appCertsPage is the application's Certificates page, its form as f.
func (h *Certificates) appCertsPage(w http.ResponseWriter, r *http.Request, status int, f views.IssueForm) {
	o, a, ok := orgAndItem(h.Org, w, r, h.Store.GetSoftwareStatement, "appID", "Application")
	if !ok {
		return
	}
	certs, err := h.Issuing.ApplicationCertificates(r.Context(), o.OrganisationID, a.SoftwareStatementID)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	f.Uses = directory.AppUses
	p := views.AppCertsPage{OrgPage: views.NewOrgPage(h.Vocab, o, views.TabApplications), App: a, Certs: certs, Now: h.Certs.Now(),
		PKIOn: h.Issuing.CA.On(r.Context()), Form: f}
	Render(w, r, status, views.AppCertificates(h.Shell(r, "Certificates: "+a.ClientName, "organisations", views.OrgCrumbs(&o, a.ClientName)...), p))
}

// AppCertificatePEM is GET …/softwarestatements/{appID}/certificates/kid/{kid}/certificate.pem
// (chain false) and …/chain.pem (leaf, then CA): a download.
func (h *Certificates) AppCertificatePEM(chain bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := h.Issuing.ApplicationCertificate(r.Context(), PathParam(r, "orgID"), PathParam(r, "appID"), PathParam(r, "kid"))
		if err != nil {
			WriteError(w, r, err)
			return
		}
		body, name := c.PEM, "certificate.pem"
		if chain {
			body, name = c.Chain, "chain.pem"
		}
		w.Header().Set("Content-Type", pemType)
		w.Header().Set("Content-Disposition", `attachment; filename="`+c.OrganisationCertificateType+"-"+name+`"`)
		_, _ = io.WriteString(w, body)
	}
}

// AppKeystore is GET /keystore/{orgID}/{appID}/application.jwks (which
// directory.KeystoreApplication) or …/transport.jwks, and their inactive/
// twins (active false: revoked and expired keys).
func (h *Certificates) AppKeystore(which string, active bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		keys, err := h.Issuing.Keys(r.Context(), PathParam(r, "orgID"), PathParam(r, "appID"), which, active)
		if err != nil {
			r = r.Clone(r.Context())
			r.Header.Set("Accept", "application/json") // for machines, as the organisation's keystore
			WriteError(w, r, err)
			return
		}
		b, _ := json.Marshal(map[string]any{"keys": keys})
		w.Header().Set("Content-Type", "application/jwk-set+json")
		w.Header().Set("Cache-Control", "public, max-age=60")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		_, _ = w.Write(b)
	}
}
