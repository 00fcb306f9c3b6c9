package handlers

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/a-h/templ"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Audit lists audit records with filters and pages.
func (h *Pages) Audit(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	page, size, err := PageParams(q)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	f, err := auditFilter(q)
	status, refused := http.StatusOK, map[string]string{}
	if err != nil {
		// On the page, a period refused is shown beside its field, the
		// filters kept to correct; the API answers the problem.
		e := AsError(err)
		if WantsJSON(r) || len(e.Fields) == 0 {
			WriteError(w, r, err)
			return
		}
		for _, fe := range e.Fields {
			refused[fe.Field] = fe.Message
		}
		status = e.Status
	}
	f.Page, f.Size = page, size
	var recs []store.AuditRecord
	total := 0
	if len(refused) == 0 {
		if recs, total, err = h.Store.ListAudit(r.Context(), f); err != nil {
			WriteError(w, r, err)
			return
		}
	}
	env := NewPaged(recs, page, size, total)
	RespondPage(w, r, status, env, func() (templ.Component, error) {
		names, err := h.Store.NamesForAudit(r.Context(), recs)
		if err != nil {
			return nil, err
		}
		actions, err := h.Store.AuditActions(r.Context(), "", "")
		if err != nil {
			return nil, err
		}
		subjects, err := h.Store.AuditSubjectTypes(r.Context())
		if err != nil {
			return nil, err
		}
		p := views.AuditPage{Records: recs, Entries: views.AuditEntries(recs, names), Actions: actions, SubjectTypes: subjects, Total: total, Page: page, TotalPages: env.TotalPages, Action: f.Action, Subject: f.SubjectType,
			OrganisationID: f.OrganisationID, KeyID: f.KeyID, From: q.Get("From"), To: q.Get("To"), Errors: refused}
		p.SetLinks(q, PrevPage(page, env.TotalPages))
		return views.Audit(h.Shell(r, "Audit", "audit", views.Crumb{Label: "Audit"}), p), nil
	})
}

// auditFilter reads the audit log's filters; From and To are a period
// (directory.AuditPeriod).
func auditFilter(q url.Values) (store.AuditFilter, error) {
	if err := givenOnce(q, "Subject", "SubjectId", "OrganisationId", "KeyId", "CertificateType", "Action", "Actor", "From", "To"); err != nil {
		return store.AuditFilter{}, err
	}
	f := store.AuditFilter{SubjectType: q.Get("Subject"), SubjectID: q.Get("SubjectId"), OrganisationID: q.Get("OrganisationId"),
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
	header := []string{"AuditId", "Timestamp", "Actor", "Action", "SubjectType", "SubjectId", "OrganisationId", "KeyId", "CertificateType", "Summary"}
	n := csvStream(w, LoggerFrom(r.Context()), "audit", header, func(row func([]string) error) error {
		return h.Store.EachAudit(r.Context(), f, func(a store.AuditRecord) error {
			cells := []string{a.Actor, a.Action, a.SubjectType, a.SubjectID, a.OrganisationID, a.KeyID, a.CertificateType, a.Summary}
			for i := range cells {
				cells[i] = directory.Guard(cells[i])
			}
			return row(append([]string{strconv.FormatInt(a.ID, 10), a.At.UTC().Format(time.RFC3339Nano)}, cells...))
		})
	})
	recordExport(r, h.Store.RecordEvent, store.AuditRecord{SubjectType: "AuditLog", Summary: fmt.Sprintf("%d audit records", n)})
}
