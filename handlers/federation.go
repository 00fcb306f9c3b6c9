package handlers

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/federation"
	"github.com/trustframe/trustframe/federation/anchor"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/rebuild"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Federation serves the directory as its participants' OpenID Federation
// trust anchor (docs/design.md §13): its entity configuration and the
// fetch, list and resolve endpoints, which anchor.Directory answers, and
// the console's Federation tabs. Every answer of an endpoint is a signed
// statement or a federation JSON error; internal failures are logged,
// never shown.
type Federation struct {
	*Base
	Store  *store.DB
	Org    *Org // the Federation tab loads organisations as the directory does
	Anchor *anchor.Directory
	Now    func() time.Time

	list rebuild.Cache[anchor.Listing] // the subordinates, rebuilt in the background after a change
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
// statement can be made, of any of the given entity types. The whole list
// is built once per change of the store (at most a minute old, for changes
// made by another process), in the background while the previous list is
// served (rebuild.Cache), and filtered per request.
func (h *Federation) List(w http.ResponseWriter, r *http.Request) {
	// Filters this directory does not support are refused rather than
	// ignored (OpenID Federation 1.0, Subordinate Listing Request).
	if anchor.UnsupportedListFilter(w, r.URL.Query()) {
		return
	}
	v, err := h.list.Get(r.Context(), h.Store.DirectoryVersion(), h.Anchor.Subordinates)
	if err != nil {
		h.answer(w, r, "", "", "", err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(v.Val.Answer(r.URL.Query()["entity_type"]))
}

// Tab is the Federation tab of an application (kind "Application") or
// authorisation server; with check it also resolves the live entity.
func (h *Federation) Tab(kind string, check bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		o, ok := h.Org.loadOrg(w, r)
		if !ok {
			return
		}
		p, tab, entityPage, err := h.tabEntity(r, o, kind)
		if err != nil {
			WriteError(w, r, err)
			return
		}
		p.Checked, p.Action, p.OrgPage = check, entityPage+"/federation/check", h.Org.orgPage(o, tab)
		now := h.Now()
		var statementErr error
		if p.EntityID == "" {
			p.Reason = "This entity has no federation entity ID: set one on its edit page to list it in the directory's federation."
		} else if st, err := h.Anchor.Statement(r.Context(), p.EntityID, now); err != nil {
			statementErr = err
		} else {
			sb, _ := json.MarshalIndent(st.Claims, "", "  ")
			pb, _ := json.MarshalIndent(st.Policy, "", "  ")
			p.Statement, p.Policy = string(sb), string(pb)
		}
		if statementErr != nil {
			if p.Reason = noStatement(statementErr, "The federation does not list this entity: it and its organisation must both be Active."); p.Reason == "" {
				WriteError(w, r, statementErr)
				return
			}
		}
		if check && p.EntityID != "" {
			_, metadata, err := h.Anchor.Resolve(r.Context(), p.EntityID, nil, now)
			if err == nil {
				mb, _ := json.MarshalIndent(metadata, "", "  ")
				p.Resolved = string(mb)
			} else if p.CheckError = unresolved(err); p.CheckError == "" {
				WriteError(w, r, err)
				return
			}
		}
		// Organisations › the organisation › the entity (linked) › Federation.
		crumbs := h.Org.orgCrumbs(&o, p.Name)
		crumbs[len(crumbs)-1].Href = entityPage
		crumbs = append(crumbs, views.Crumb{Label: "Federation"})
		Render(w, r, http.StatusOK, views.Federation(h.Shell(r, "Federation", "organisations", crumbs...), p))
	}
}

// tabEntity reads the application or server of a Federation tab: its
// name and entity ID, the organisation's tab it is under and its page.
func (h *Federation) tabEntity(r *http.Request, o store.Organisation, kind string) (views.FederationPage, string, string, error) {
	base := paths.Organisation(o.OrganisationID)
	if kind == "Application" {
		a, err := h.Store.GetSoftwareStatement(r.Context(), o.OrganisationID, PathParam(r, "appID"))
		if err != nil {
			return views.FederationPage{}, "", "", directory.Named(err, "Application")
		}
		return views.FederationPage{Name: a.ClientName, EntityID: a.FederationEntityID}, views.TabApplications, base + "/softwarestatements/" + a.SoftwareStatementID, nil
	}
	s, err := h.Store.GetAuthorisationServer(r.Context(), o.OrganisationID, PathParam(r, "serverID"))
	if err != nil {
		return views.FederationPage{}, "", "", directory.Named(err, "Authorisation server")
	}
	return views.FederationPage{Name: s.CustomerFriendlyName, EntityID: s.FederationEntityID}, views.TabServers, base + "/authorisationservers/" + s.AuthorisationServerID, nil
}

// noStatement says why no statement is made about a subject (notListed
// when it is not a subordinate), or "" for a failure to answer as an error.
func noStatement(err error, notListed string) string {
	var se *federation.StatementError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return notListed
	case errors.As(err, &se):
		return "No statement can be made: " + se.Reason
	}
	return ""
}

// unresolved says why an entity does not resolve, or "" for a failure to
// answer as an error.
func unresolved(err error) string {
	var fe *anchor.Error
	switch {
	case errors.As(err, &fe) && fe.Code == "temporarily_unavailable":
		return "The entity's configuration was " + anchor.ErrFetchBudget{}.Error() + "."
	case errors.As(err, &fe):
		return "The entity does not resolve: " + fe.Description
	}
	return noStatement(err, "The federation does not list this entity.")
}
