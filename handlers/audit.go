package handlers

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/a-h/templ"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/views"
)

// Audit lists audit records with filters and pages.
func (h *Pages) Audit(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	who := PrincipalFrom(r.Context())
	if who.IsOrgAdmin() && q.Get("OrganisationId") == "" && !WantsJSON(r) {
		// An Organisation Administrator's audit log is their
		// organisation's records (docs/design.md §19).
		Vary(w)
		http.Redirect(w, r, orgAdminAudit(who, q), http.StatusSeeOther)
		return
	}
	page, size, err := PageParams(q)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	f, err := auditFilter(q)
	f.Page, f.Size = page, size
	var list directory.AuditPage
	status, refused := http.StatusOK, map[string]string{}
	switch {
	case err == nil:
		list, err = h.Log.List(r.Context(), f, !WantsJSON(r))
	case WantsJSON(r) || len(AsError(err).Fields) == 0:
		WriteError(w, r, err)
		return
	default:
		// On the page, a period refused is shown beside its field, the
		// filters kept to correct, and no record is read.
		e := AsError(err)
		for _, fe := range e.Fields {
			refused[fe.Field] = fe.Message
		}
		status = e.Status
		list, err = h.Log.Choices(r.Context())
	}
	if err != nil {
		WriteError(w, r, err)
		return
	}
	env := NewPaged(list.Records, page, size, list.Total)
	RespondPage(w, r, status, env, func() (templ.Component, error) {
		p := views.AuditPage{Records: list.Records, Entries: views.AuditEntries(list.Records, list.Names), Actions: list.Actions, SubjectTypes: list.SubjectTypes,
			Total: list.Total, Page: page, TotalPages: env.TotalPages, Action: f.Action, Subject: f.SubjectType,
			OrganisationID: f.OrganisationID, KeyID: f.KeyID, From: q.Get("From"), To: q.Get("To"), Errors: refused}
		p.SetLinks(q, PrevPage(page, env.TotalPages))
		if who.IsOrgAdmin() {
			orgs, err := h.Start.Administered(r.Context(), who.Orgs)
			if err != nil {
				return nil, err
			}
			p.OrgOpts = views.OrgOptions(orgs, f.OrganisationID)
		}
		return views.Audit(h.Shell(r, "Audit", "audit", views.Crumb{Label: "Audit"}), p), nil
	})
}

// auditFilter reads the audit log's filters; From and To are a period
// (directory.AuditPeriod).
func auditFilter(q url.Values) (directory.AuditFilter, error) {
	if err := givenOnce(q, "Subject", "SubjectId", "OrganisationId", "KeyId", "CertificateType", "Action", "Actor", "From", "To"); err != nil {
		return directory.AuditFilter{}, err
	}
	f := directory.AuditFilter{SubjectType: q.Get("Subject"), SubjectID: q.Get("SubjectId"), OrganisationID: q.Get("OrganisationId"),
		KeyID: q.Get("KeyId"), CertificateType: q.Get("CertificateType"), Action: q.Get("Action"), Actor: q.Get("Actor")}
	var refused directory.Fields
	if f.From, f.To, refused = directory.AuditPeriod(q.Get("From"), q.Get("To")); len(refused) > 0 {
		e := CodeInvalidParameter.New("The period of the audit log is not valid.")
		for _, k := range refused.Names() {
			e.Fields = append(e.Fields, FieldError{Field: k, Code: FieldInvalid, Message: refused[k]})
		}
		return f, e
	}
	return f, nil
}

// ExportAudit streams the audit records that match the filters as CSV,
// oldest first (GET /audit/export.csv, and the same under /api).
func (h *Pages) ExportAudit(w http.ResponseWriter, r *http.Request) {
	f, err := auditFilter(r.URL.Query())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	n := csvStream(w, LoggerFrom(r.Context()), "audit", directory.AuditColumns, func(row func([]string) error) error {
		return h.Log.Export(r.Context(), f, row)
	})
	recordExport(r, h.Log.Record, directory.AuditRecord{SubjectType: "AuditLog", Summary: fmt.Sprintf("%d audit records", n)})
}

// orgAdminAudit is where the audit log of an Organisation Administrator
// who chose no organisation goes: the log of their only one, the filters
// q kept, or the start page's choice among theirs.
func orgAdminAudit(who Principal, q url.Values) string {
	if len(who.Orgs) != 1 {
		return "/"
	}
	q.Set("OrganisationId", who.Orgs[0])
	return "/audit?" + q.Encode()
}
