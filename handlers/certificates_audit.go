package handlers

import (
	"net/http"
	"net/url"

	"github.com/a-h/templ"

	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Audit is the certificates' Audit sub-tab: filters kept in the URL.
func (h *Certificates) Audit(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	f := store.AuditFilter{SubjectType: "OrganisationCertificate", OrganisationID: o.OrganisationID, CertificateType: r.URL.Query().Get("CertificateType")}
	env, list, ok := h.auditList(w, r, f, paths.OrganisationTab(o.OrganisationID, "certificates")+"/audit")
	if !ok {
		return
	}
	types, _ := h.Certs.Types(r.Context())
	p := views.CertAuditPage{OrgPage: views.NewOrgPage(h.Vocab, o, views.TabCertificates), AuditList: list, CertificateType: f.CertificateType, Types: types}
	Respond(w, r, http.StatusOK, env, views.CertificateAudit(h.Shell(r, "Certificate audit", "organisations", views.OrgCrumbs(&o, "Certificate audit")...), p))
}

// AppAudit is an application's Audit tab: its changes and the SSAs issued.
func (h *Certificates) AppAudit(w http.ResponseWriter, r *http.Request) {
	o, app, ok := orgAndItem(h.Org, w, r, h.Store.GetSoftwareStatement, "appID", "Application")
	if !ok {
		return
	}
	f := store.AuditFilter{SubjectType: "Application", SubjectID: app.SoftwareStatementID}
	env, list, ok := h.auditList(w, r, f, paths.Application(o.OrganisationID, app.SoftwareStatementID)+"/audit")
	if !ok {
		return
	}
	RespondPage(w, r, http.StatusOK, env, func() (templ.Component, error) {
		p := views.AppAuditPage{OrgPage: views.NewOrgPage(h.Vocab, o, views.TabApplications), App: app, AuditList: list}
		return views.AppAudit(h.Shell(r, "Application audit", "organisations", views.OrgCrumbs(&o, app.ClientName)...), p), nil
	})
}

// auditList reads the page of the audit records f asks for, filtered by
// the KeyId and Action of the URL: the API's answer, and for the browser
// the list at path with the records as a person reads them and the
// actions to filter by. An error is answered and ok is false.
func (h *Certificates) auditList(w http.ResponseWriter, r *http.Request, f store.AuditFilter, path string) (env Paged[store.AuditRecord], list views.AuditList, ok bool) {
	q := r.URL.Query()
	page, size, err := PageParams(q)
	if err != nil {
		WriteError(w, r, err)
		return env, list, false
	}
	f.KeyID, f.Action, f.Page, f.Size = q.Get("KeyId"), q.Get("Action"), page, size
	recs, total, err := h.Store.ListAudit(r.Context(), f)
	if err == nil && !WantsJSON(r) {
		list, err = h.readable(r, f, recs)
	}
	if err != nil {
		WriteError(w, r, err)
		return env, list, false
	}
	env = NewPaged(recs, page, size, total)
	list.Records, list.Total, list.KeyID, list.Action, list.Path = recs, total, f.KeyID, f.Action, path
	list.ClearActionURL, list.PrevURL, list.NextURL = auditNav(path, q, page, env.TotalPages)
	return env, list, true
}

// readable is the audit records recs as a person reads them, and the
// actions of the records f lists to filter them by.
func (h *Certificates) readable(r *http.Request, f store.AuditFilter, recs []store.AuditRecord) (views.AuditList, error) {
	names, err := h.Store.NamesForAudit(r.Context(), recs)
	if err != nil {
		return views.AuditList{}, err
	}
	actions, err := h.Store.AuditActions(r.Context(), f.SubjectType, f.SubjectID)
	return views.AuditList{Entries: views.AuditEntries(recs, names), Actions: actions}, err
}

// auditNav is the links of the audit list at path asked with q: the list
// without its Action filter, and the pages before and after page.
func auditNav(path string, q url.Values, page, totalPages int) (clearAction, prev, next string) {
	clear := url.Values{}
	for k, vs := range q {
		if k != "Action" && k != "page" {
			clear[k] = vs
		}
	}
	if page > 0 {
		prev = PageLink(path, q, PrevPage(page, totalPages))
	}
	if page+1 < totalPages {
		next = PageLink(path, q, page+1)
	}
	return path + "?" + clear.Encode(), prev, next
}
