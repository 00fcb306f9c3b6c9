package handlers

import (
	"encoding/json"
	"net/http"

	"github.com/trustframe/trustframe/federation/anchor"
)

// The directory's trust mark endpoints (docs/design.md §17), answered by
// anchor.Directory: marks and status responses are never cached, so that
// a revocation shows at once; errors are federation errors.

// refuse answers err: a refusal as the federation error it is, anything
// else a logged 500 with a fixed message.
func (h *Federation) refuse(w http.ResponseWriter, r *http.Request, err error) {
	if fe := h.Anchor.Refusal("", err); fe != nil {
		fe.Write(w)
		return
	}
	LoggerFrom(r.Context()).Error("federation", "path", r.URL.Path, "err", err)
	anchor.WriteError(w, http.StatusInternalServerError, "server_error", "the answer could not be made; the failure is logged")
}

// TrustMark answers GET /federation/trust-mark?trust_mark_type=&sub=: a
// trust-mark+jwt, or 404 not_found when sub is not entitled to one.
func (h *Federation) TrustMark(w http.ResponseWriter, r *http.Request) {
	tok, err := h.Anchor.IssueTrustMark(r.Context(), r.URL.Query(), h.Now())
	if err != nil {
		h.refuse(w, r, err)
		return
	}
	anchor.WriteTrustMarkJWT(w, anchor.TrustMarkTyp, tok)
}

// TrustMarkStatus answers POST /federation/trust-mark-status (form
// trust_mark=<JWT>): a trust-mark-status-response+jwt.
func (h *Federation) TrustMarkStatus(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, anchor.TrustMarkStatusBodyLimit)
	if err := r.ParseForm(); err != nil {
		anchor.WriteError(w, http.StatusBadRequest, "invalid_request", "the request body is not a form of at most 64 KiB")
		return
	}
	tok, err := h.Anchor.TrustMarkStatus(r.Context(), r.PostForm.Get("trust_mark"), h.Now())
	if err != nil {
		h.refuse(w, r, err)
		return
	}
	anchor.WriteTrustMarkJWT(w, anchor.TrustMarkStatusTyp, tok)
}

// TrustMarkedEntities answers GET
// /federation/trust-marked-entities?trust_mark_type=[&sub=]: the entity
// IDs entitled now to a mark of the type, as a JSON array.
func (h *Federation) TrustMarkedEntities(w http.ResponseWriter, r *http.Request) {
	ids, err := h.Anchor.TrustMarkedEntities(r.Context(), r.URL.Query(), h.Now())
	if err != nil {
		h.refuse(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(ids)
}
