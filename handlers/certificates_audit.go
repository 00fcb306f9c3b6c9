package handlers

import (
	"net/http"
	"net/url"

	"github.com/a-h/templ"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/views"
)

// Audit is the certificates' Audit sub-tab: filters kept in the URL.
func (h *Certificates) Audit(w http.ResponseWriter, r *http.Request) {
	o, ok := h.Org.loadOrg(w, r)
	if !ok {
		return
	}
	f := directory.AuditFilter{SubjectType: "OrganisationCertificate", OrganisationID: o.OrganisationID, CertificateType: r.URL.Query().Get("CertificateType")}
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
	f := directory.AuditFilter{SubjectType: "Application", SubjectID: app.SoftwareStatementID}
	env, list, ok := h.auditList(w, r, f, paths.Application(o.OrganisationID, app.SoftwareStatementID)+"/audit")
	if !ok {
		return
	}
	RespondPage(w, r, http.StatusOK, env, func() (templ.Component, error) {
		p := views.AppAuditPage{OrgPage: views.NewOrgPage(h.Vocab, o, views.TabApplications), App: app, AuditList: list}
		return views.AppAudit(h.Shell(r, "Application audit", "organisations", views.OrgCrumbs(&o, app.ClientName)...), p), nil
	})
}

// auditList reads the page of the audit records of one subject f asks
// for, filtered by the KeyId and Action of the URL: the API's answer, and
// for the browser the list at path with the records as a person reads them
// and the actions to filter by. An error is answered and ok is false.
func (h *Certificates) auditList(w http.ResponseWriter, r *http.Request, f directory.AuditFilter, path string) (env Paged[directory.AuditRecord], list views.AuditList, ok bool) {
	q := r.URL.Query()
	page, size, err := PageParams(q)
	if err != nil {
		WriteError(w, r, err)
		return env, list, false
	}
	f.KeyID, f.Action, f.Page, f.Size = q.Get("KeyId"), q.Get("Action"), page, size
	got, err := h.Log.Of(r.Context(), f, !WantsJSON(r))
	if err != nil {
		WriteError(w, r, err)
		return env, list, false
	}
	env = NewPaged(got.Records, page, size, got.Total)
	list = views.AuditList{Records: got.Records, Total: got.Total, KeyID: f.KeyID, Action: f.Action, Path: path, Actions: got.Actions}
	if !WantsJSON(r) {
		list.Entries = views.AuditEntries(got.Records, got.Names)
	}
	list.ClearActionURL, list.PrevURL, list.NextURL = auditNav(path, q, page, env.TotalPages)
	return env, list, true
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
