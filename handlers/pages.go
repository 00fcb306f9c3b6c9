package handlers

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

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
