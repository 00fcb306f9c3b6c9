package handlers

import (
	"net/http"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/federation/anchor"
)

// Federation serves the directory as its participants' OpenID Federation
// trust anchor (docs/design.md §13): its entity configuration and the
// fetch, list and resolve endpoints, which anchor.Directory answers, and
// the console's Federation tabs. Every answer of an endpoint is a signed
// statement or a federation JSON error; internal failures are logged,
// never shown.
type Federation struct {
	*Base
	Org     *Org // the Federation tab loads organisations as the directory does
	Apps    *directory.Applications
	Servers *directory.Servers
	Anchor  *anchor.Directory
	Now     func() time.Time
	// Marks is the trust marks of the Federation tab (docs/design.md §17).
	Marks *directory.EntityTrustMarks
}

// answer writes a signed statement of type typ, or why there is none:
// a refusal as the federation error it is, anything else a logged 500
// with a fixed message.
func (h *Federation) answer(w http.ResponseWriter, r *http.Request, typ, sub, tok string, err error) {
	if err == nil {
		anchor.WriteJWT(w, typ, tok, h.Anchor.Keys.Lifetime())
		return
	}
	if fe := h.Anchor.Refusal(sub, err); fe != nil {
		fe.Write(w)
		return
	}
	LoggerFrom(r.Context()).Error("federation", "path", r.URL.Path, "sub", sub, "err", err)
	anchor.WriteError(w, http.StatusInternalServerError, "server_error", "the statement could not be made; the failure is logged")
}

// EntityConfiguration answers GET /.well-known/openid-federation.
func (h *Federation) EntityConfiguration(w http.ResponseWriter, r *http.Request) {
	tok, err := h.Anchor.EntityConfiguration(r.Context(), h.Now())
	h.answer(w, r, "entity-statement+jwt", h.Anchor.EntityID, tok, err)
}

// HistoricalKeys answers GET /federation/historical-keys: the retired
// federation keys, signed with the current one.
func (h *Federation) HistoricalKeys(w http.ResponseWriter, r *http.Request) {
	tok, err := h.Anchor.HistoricalKeys(r.Context(), h.Now())
	h.answer(w, r, "jwk-set+jwt", h.Anchor.EntityID, tok, err)
}

// Fetch answers GET /federation/fetch?sub=.
func (h *Federation) Fetch(w http.ResponseWriter, r *http.Request) {
	tok, err := h.Anchor.Fetch(r.Context(), r.URL.Query(), h.Now())
	h.answer(w, r, "entity-statement+jwt", r.URL.Query().Get("sub"), tok, err)
}

// Resolve answers GET /federation/resolve?sub=&trust_anchor=: a
// resolve-response+jwt, or 400 invalid_trust_chain for a chain that does
// not hold.
func (h *Federation) Resolve(w http.ResponseWriter, r *http.Request) {
	tok, err := h.Anchor.ResolveRequest(r.Context(), r.URL.Query(), h.Now())
	h.answer(w, r, "resolve-response+jwt", r.URL.Query().Get("sub"), tok, err)
}

// List answers GET /federation/list[?entity_type=]: the subordinates whose
// statement can be made, of any of the given entity types, and entitled
// to a trust mark when trust_marked or trust_mark_type asks
// (Directory.ListKeep), filtered from the list the anchor keeps
// (anchor.Directory.Listed).
func (h *Federation) List(w http.ResponseWriter, r *http.Request) {
	keep, err := h.Anchor.ListKeep(r.Context(), r.URL.Query(), h.Now())
	if err != nil {
		h.answer(w, r, "", "", "", err)
		return
	}
	v, err := h.Anchor.Listed(r.Context())
	if err != nil {
		h.answer(w, r, "", "", "", err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(v.Answer(r.URL.Query()["entity_type"], keep))
}
