package handlers

import (
	"net/http"
	"strings"
	"time"

	"github.com/trustframe/trustframe/participants"
	"github.com/trustframe/trustframe/store"
)

// Participants is GET /participants (public): Active organisations with
// their Active authorisation servers and Active authority claims
// (OrgDomainClaims, OrgDomainRoleClaims); AuthorisationDomain= and Role=
// keep the organisations with an Active claim on them. The answer is
// rebuilt in the background after the store changes (participants.Cache)
// and sent with an ETag and Last-Modified, gzipped when the client accepts
// it.
func (h *Organisations) Participants(w http.ResponseWriter, r *http.Request) {
	domain, role, err := h.roleFilter(r.Context(), r.URL.Query())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	a, err := h.participants.Get(r.Context(), h.Store, domain, role, h.Vocab)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	serveAnswer(w, r, a, "60")
}

// serveAnswer writes a built answer: 304 for a matching If-None-Match (or,
// without one, an If-Modified-Since not older than Last-Modified), gzip
// when the client takes it.
func serveAnswer(w http.ResponseWriter, r *http.Request, a *participants.Answer, maxAge string) {
	h := w.Header()
	h.Set("ETag", a.ETag)
	h.Set("Last-Modified", a.Modified.UTC().Format(http.TimeFormat))
	h.Set("Cache-Control", "public, max-age="+maxAge)
	h.Add("Vary", "Accept-Encoding")
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		if inm == a.ETag || strings.Contains(inm, a.ETag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	} else if ims, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil && !a.Modified.Truncate(time.Second).After(ims) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "application/json")
	body := a.Body
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		body = a.Gzip
	}
	_, _ = w.Write(body)
}

// orgAnswer is an organisation as the API answers it: it writes its own
// JSON with the participants list's encoder, byte for byte json.Marshal's,
// without reflection, for the API's hottest read.
type orgAnswer store.Organisation

func (o *orgAnswer) appendJSON(b []byte) []byte {
	return participants.AppendOrganisation(b, (*store.Organisation)(o))
}
