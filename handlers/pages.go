package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/a-h/templ"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/handlers/openapi"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Pages serves the simple pages of the console.
type Pages struct {
	*Base
	Store interface {
		ListOutbox(ctx context.Context, limit int) ([]store.OutboxMessage, error)
		ListAudit(ctx context.Context, f store.AuditFilter) ([]store.AuditRecord, int, error)
		EachAudit(ctx context.Context, f store.AuditFilter, fn func(store.AuditRecord) error) error
		LatestAudit(ctx context.Context, n int) ([]store.AuditRecord, error)
		AuditActions(ctx context.Context, subjectType, subjectID string) ([]string, error)
		AuditSubjectTypes(ctx context.Context) ([]string, error)
		NamesForAudit(ctx context.Context, recs []store.AuditRecord) (store.AuditNames, error)
		RecordEvent(ctx context.Context, r store.AuditRecord) error
		Expiring(ctx context.Context, before time.Time, limit int) (store.Expiring, error)
		ListOrganisations(ctx context.Context, f store.OrgFilter) ([]store.Organisation, int, error)
		PausedWebhooks(ctx context.Context) ([]store.Webhook, error)
	}
	Now func() time.Time

	apiDoc apiDocCache // the API page, built on first use
}

// expiringLimit caps each list of GET /api/expiring and the home page.
const expiringLimit = 200

// expiringDays reads days= (default 30, 0 to 365): the horizon of
// "expires soon".
func expiringDays(q url.Values) (int, error) {
	v := q.Get("days")
	if v == "" {
		return 30, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 365 {
		return 0, CodeInvalidParameter.New("days must be a whole number from 0 to 365").WithFields(FieldError{Field: "days", Code: FieldInvalid, Message: "must be a whole number from 0 to 365"})
	}
	return n, nil
}

func (h *Pages) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// expiring reads days= and lists what expires within them.
func (h *Pages) expiring(r *http.Request) (store.Expiring, int, error) {
	days, err := expiringDays(r.URL.Query())
	if err != nil {
		return store.Expiring{}, 0, err
	}
	e, err := h.Store.Expiring(r.Context(), h.now().Add(time.Duration(days)*24*time.Hour), expiringLimit)
	return e, days, err
}

// Expiring is GET /api/expiring?days=N: active certificates, regulatory
// documents and active certifications that have expired or expire within N
// days, soonest first (organisations that are Withdrawn left out).
func (h *Pages) Expiring(w http.ResponseWriter, r *http.Request) {
	e, _, err := h.expiring(r)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, e)
}

// Home is the start page: the console when signed in, a sign-in button otherwise.
func (h *Pages) Home(w http.ResponseWriter, r *http.Request) {
	if PrincipalFrom(r.Context()).Email == "" {
		Render(w, r, http.StatusOK, views.SignedOut(h.Shell(r, "Sign in", "")))
		return
	}
	e, days, err := h.expiring(r)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	_, pending, err := h.Store.ListOrganisations(r.Context(), store.OrgFilter{Status: "Pending", Size: 1})
	if err != nil {
		WriteError(w, r, err)
		return
	}
	recent, err := h.Store.LatestAudit(r.Context(), 8)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	names, err := h.Store.NamesForAudit(r.Context(), recent)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	var paused []store.Webhook
	if PrincipalFrom(r.Context()).IsSuperUser() {
		if paused, err = h.Store.PausedWebhooks(r.Context()); err != nil {
			WriteError(w, r, err)
			return
		}
	}
	Render(w, r, http.StatusOK, views.Home(h.Shell(r, "Home", ""), views.HomePage{Expiring: e, Days: days, Pending: pending, Today: h.now().UTC(),
		Recent: views.AuditEntries(recent, names), Paused: paused}))
}

// References is the Reference Data index (Super Users only).
func (h *Pages) References(w http.ResponseWriter, r *http.Request) {
	Render(w, r, http.StatusOK, views.References(h.Shell(r, "Reference Data", "reference", views.Crumb{Label: "Reference Data"})))
}

// Outbox lists messages the service wrote (development outbox).
func (h *Pages) Outbox(w http.ResponseWriter, r *http.Request) {
	msgs, err := h.Store.ListOutbox(r.Context(), 100)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Respond(w, r, http.StatusOK, msgs, views.Outbox(h.Shell(r, "Outbox", "reference", views.Crumb{Label: "Reference Data", Href: "/references"}, views.Crumb{Label: "Outbox"}), msgs))
}

// PageParams reads page and size; bad values, and either given twice
// (as signingAlg twice: which one counts depends on who reads), are a 400.
func PageParams(q url.Values) (page, size int, err error) {
	page, size = 0, 20
	if err := givenOnce(q, "page", "size"); err != nil {
		return 0, 0, err
	}
	if v := q.Get("page"); v != "" {
		page, err = strconv.Atoi(v)
		if err != nil || page < 0 || page > 10_000_000 {
			return 0, 0, CodeInvalidParameter.New("page must be a whole number from 0 to 10000000").WithFields(FieldError{Field: "page", Code: FieldInvalid, Message: "must be a whole number from 0 to 10000000"})
		}
	}
	if v := q.Get("size"); v != "" {
		size, err = strconv.Atoi(v)
		if err != nil || size < 1 || size > 200 {
			return 0, 0, CodeInvalidParameter.New("size must be from 1 to 200").WithFields(FieldError{Field: "size", Code: FieldInvalid, Message: "must be from 1 to 200"})
		}
	}
	return page, size, nil
}

// Paged is the envelope of large lists (docs/design.md §4).
type Paged[T any] struct {
	Content          []T  `json:"content"`
	PageNumber       int  `json:"pageNumber"`
	Size             int  `json:"size"`
	TotalSize        int  `json:"totalSize"`
	TotalPages       int  `json:"totalPages"`
	NumberOfElements int  `json:"numberOfElements"`
	Empty            bool `json:"empty"`
}

// NewPaged builds the envelope.
func NewPaged[T any](items []T, page, size, total int) Paged[T] {
	if items == nil {
		items = []T{}
	}
	return Paged[T]{Content: items, PageNumber: page, Size: size, TotalSize: total,
		TotalPages: (total + size - 1) / size, NumberOfElements: len(items), Empty: len(items) == 0}
}

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
		link := func(mod func(url.Values)) string {
			v := url.Values{}
			for k, vs := range q {
				v[k] = vs
			}
			mod(v)
			return "/audit?" + v.Encode()
		}
		p := views.AuditPage{Records: recs, Entries: views.AuditEntries(recs, names), Actions: actions, SubjectTypes: subjects, Total: total, Page: page, TotalPages: env.TotalPages, Action: f.Action, Subject: f.SubjectType,
			OrganisationID: f.OrganisationID, KeyID: f.KeyID, From: q.Get("From"), To: q.Get("To"), Errors: refused,
			ClearURL: link(func(v url.Values) { v.Del("Action"); v.Del("page") })}
		ex := url.Values{}
		for k, vs := range q {
			if k != "page" && k != "size" {
				ex[k] = vs
			}
		}
		p.ExportURL = "/audit/export.csv"
		if len(ex) > 0 {
			p.ExportURL += "?" + ex.Encode()
		}
		if page > 0 {
			p.PrevURL = link(func(v url.Values) { v.Set("page", strconv.Itoa(PrevPage(page, env.TotalPages))) })
		}
		if page+1 < env.TotalPages {
			p.NextURL = link(func(v url.Values) { v.Set("page", strconv.Itoa(page+1)) })
		}
		return views.Audit(h.Shell(r, "Audit", "audit", views.Crumb{Label: "Audit"}), p), nil
	})
}

// auditFilter reads the audit log's filters; From and To are dates
// (YYYY-MM-DD, UTC), To included.
func auditFilter(q url.Values) (store.AuditFilter, error) {
	if err := givenOnce(q, "Subject", "SubjectId", "OrganisationId", "KeyId", "CertificateType", "Action", "Actor", "From", "To"); err != nil {
		return store.AuditFilter{}, err
	}
	f := store.AuditFilter{SubjectType: q.Get("Subject"), SubjectID: q.Get("SubjectId"), OrganisationID: q.Get("OrganisationId"),
		KeyID: q.Get("KeyId"), CertificateType: q.Get("CertificateType"), Action: q.Get("Action"), Actor: q.Get("Actor")}
	bad := map[string]string{}
	for _, k := range []string{"From", "To"} {
		v := q.Get(k)
		if v == "" {
			continue
		}
		d, err := time.Parse("2006-01-02", v)
		if err != nil {
			bad[k] = k + " must be a date, YYYY-MM-DD."
			continue
		}
		if k == "From" {
			f.From = d
		} else {
			f.To = d.AddDate(0, 0, 1)
		}
	}
	if len(bad) == 0 && !f.From.IsZero() && !f.To.IsZero() && !f.From.Before(f.To) {
		bad["To"] = "To must not be before From."
	}
	if len(bad) > 0 {
		e := CodeInvalidParameter.New("The period of the audit log is not valid.")
		for k, m := range bad {
			e.Fields = append(e.Fields, FieldError{Field: k, Code: FieldInvalid, Message: m})
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
	recordExport(r, h.Store.RecordEvent, "AuditLog", fmt.Sprintf("%d audit records", n))
}

// Releases is GET /api/releases (public).
func (h *Pages) Releases(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=3600")
	WriteJSON(w, http.StatusOK, openapi.Releases)
}

// ReleaseSpec is GET /api/releases/{version}/openapi.yaml (public).
func (h *Pages) ReleaseSpec(w http.ResponseWriter, r *http.Request) {
	spec := openapi.Spec(PathParam(r, "version"))
	if spec == nil {
		WriteError(w, r, CodeNotFound.New("no machine-readable description of release "+PathParam(r, "version")+" here"))
		return
	}
	w.Header().Set("Content-Type", "application/yaml")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Header().Set("Content-Disposition", `attachment; filename="trustframe-`+PathParam(r, "version")+`-openapi.yaml"`)
	_, _ = w.Write(spec)
}
