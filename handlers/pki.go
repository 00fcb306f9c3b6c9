package handlers

import (
	"encoding/base64"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"
	"golang.org/x/crypto/ocsp"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/views"
)

// maxOCSPRequest bounds an OCSP request's body: one request for one
// certificate is a few hundred bytes.
const maxOCSPRequest = 16 << 10

// PKI serves the directory's certificate authority (docs/design.md §18):
// its certificate, the CRL in force and the OCSP responder, all public,
// and Reference Data > Certificate authority. PKI is nil when --pki is off
// (then only the page is routed, and says so).
type PKI struct {
	*Base
	PKI *directory.PKI
}

// CAPEM is GET /pki/ca.pem.
func (h *PKI) CAPEM(w http.ResponseWriter, r *http.Request) {
	h.file(w, "application/x-pem-file", "public, max-age=3600", h.PKI.CertPEM())
}

// CACert is GET /pki/ca.crt: DER, the certificates' AIA CA-issuers URL.
func (h *PKI) CACert(w http.ResponseWriter, r *http.Request) {
	h.file(w, "application/pkix-cert", "public, max-age=3600", h.PKI.CertDER())
}

// CRL is GET /pki/crl: the CRL in force, DER, as every instance stored it
// last. It changes on every revocation, so it is not cached.
func (h *PKI) CRL(w http.ResponseWriter, r *http.Request) {
	der, err := h.PKI.CRL(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	h.file(w, "application/pkix-crl", "no-cache", der)
}

func (h *PKI) file(w http.ResponseWriter, typ, cache string, b []byte) {
	w.Header().Set("Content-Type", typ)
	w.Header().Set("Cache-Control", cache)
	w.Header().Set("Access-Control-Allow-Origin", "*")
	_, _ = w.Write(b)
}

// OCSPPost is POST /pki/ocsp: an application/ocsp-request body (RFC 6960
// A.1). Whatever it holds the answer is an OCSP response: a request that
// does not parse, or too long, gets malformedRequest.
func (h *PKI) OCSPPost(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxOCSPRequest))
	if err != nil {
		h.ocspAnswer(w, r, ocsp.MalformedRequestErrorResponse, nil)
		return
	}
	der, err := h.PKI.OCSP(r.Context(), body)
	h.ocspAnswer(w, r, der, err)
}

// OCSPGet is GET /pki/ocsp/{request}: the DER request in base64, URL-escaped
// (RFC 6960 A.1); base64url is taken too, and padding may be left out.
// A "/" of the base64 may come escaped (%2F) or not.
func (h *PKI) OCSPGet(w http.ResponseWriter, r *http.Request) {
	raw := chi.URLParam(r, "request")
	if raw == "" {
		raw = chi.URLParam(r, "*")
	}
	req, ok := ocspGetRequest(raw)
	if !ok {
		h.ocspAnswer(w, r, ocsp.MalformedRequestErrorResponse, nil)
		return
	}
	der, err := h.PKI.OCSP(r.Context(), req)
	h.ocspAnswer(w, r, der, err)
}

// ocspGetRequest decodes the path segment of a GET request.
func ocspGetRequest(raw string) ([]byte, bool) {
	s, err := url.PathUnescape(raw)
	if err != nil || s == "" || len(s) > maxOCSPRequest {
		return nil, false
	}
	s = strings.TrimRight(s, "=")
	enc := base64.RawStdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.RawURLEncoding
	}
	b, err := enc.DecodeString(s)
	return b, err == nil
}

// ocspAnswer writes an OCSP response; an error (the store's) is the
// responder's internalError, logged.
func (h *PKI) ocspAnswer(w http.ResponseWriter, r *http.Request, der []byte, err error) {
	w.Header().Set("Content-Type", "application/ocsp-response")
	w.Header().Set("Cache-Control", "no-cache")
	if err != nil {
		LoggerFrom(r.Context()).Error("OCSP", "err", err)
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write(ocsp.InternalErrorErrorResponse)
		return
	}
	_, _ = w.Write(der)
}

// Page is Reference Data > Certificate authority: the CA, its CRL in force
// and counts.
func (h *PKI) Page(w http.ResponseWriter, r *http.Request) {
	shell := h.Shell(r, "Certificate authority", "reference", views.Crumb{Label: "Reference Data", Href: "/references"}, views.Crumb{Label: "Certificate authority"})
	if h.PKI == nil {
		Render(w, r, http.StatusOK, views.CertificateAuthority(shell, views.CAPage{}))
		return
	}
	sum, err := h.PKI.Summary(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Render(w, r, http.StatusOK, views.CertificateAuthority(shell, views.NewCAPage(sum, h.BaseURL, h.PKI.Now())))
}
