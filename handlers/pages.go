package handlers

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/paths"
	"github.com/trustframe/trustframe/views"
)

// Pages serves the simple pages of the console: the start page, the audit
// log, what expires, the outbox.
type Pages struct {
	*Base
	Start *directory.Home // the start page's reads
	Log   *directory.AuditLog
}

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

// Expiring is GET /api/expiring?days=N: active certificates, regulatory
// documents and active certifications that have expired or expire within N
// days, soonest first (organisations that are Withdrawn left out).
func (h *Pages) Expiring(w http.ResponseWriter, r *http.Request) {
	days, err := expiringDays(r.URL.Query())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	e, err := h.Start.Expiring(r.Context(), days)
	writeFound(w, r, e, err)
}

// Home is the start page: the console when signed in, a sign-in button otherwise.
func (h *Pages) Home(w http.ResponseWriter, r *http.Request) {
	who := PrincipalFrom(r.Context())
	if who.Email == "" {
		Render(w, r, http.StatusOK, views.SignedOut(h.Shell(r, "Sign in", "")))
		return
	}
	if who.IsOrgAdmin() {
		h.orgAdminHome(w, r, who)
		return
	}
	days, err := expiringDays(r.URL.Query())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	d, err := h.Start.Dashboard(r.Context(), days, who.IsSuperUser())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Render(w, r, http.StatusOK, views.Home(h.Shell(r, "Home", ""), views.HomePage{Expiring: d.Expiring, Days: d.Days, Pending: d.Pending, Today: d.Today,
		Recent: views.AuditEntries(d.Recent, d.Names), Paused: d.Paused}))
}

// orgAdminHome is an Organisation Administrator's start page: their
// organisation, or a choice among theirs when they have several
// (docs/design.md §19).
func (h *Pages) orgAdminHome(w http.ResponseWriter, r *http.Request, who Principal) {
	if len(who.Orgs) == 1 {
		Vary(w)
		http.Redirect(w, r, paths.Organisation(who.Orgs[0]), http.StatusSeeOther)
		return
	}
	orgs, err := h.Start.Administered(r.Context(), who.Orgs)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Render(w, r, http.StatusOK, views.OrgChooser(h.Shell(r, "Your organisations", ""), views.OrgChoices(h.Vocab, orgs)))
}

// References is the Reference Data index (Super Users only).
func (h *Pages) References(w http.ResponseWriter, r *http.Request) {
	Render(w, r, http.StatusOK, views.References(h.Shell(r, "Reference Data", "reference", views.Crumb{Label: "Reference Data"})))
}

// Outbox lists messages the service wrote (development outbox).
func (h *Pages) Outbox(w http.ResponseWriter, r *http.Request) {
	msgs, err := h.Start.Outbox(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Respond(w, r, http.StatusOK, msgs, views.Outbox(h.Shell(r, "Outbox", "reference", views.Crumb{Label: "Reference Data", Href: "/references"}, views.Crumb{Label: "Outbox"}), msgs))
}

// Acknowledge is POST /attention/acknowledge (the start page's
// Acknowledge button; Kind Certificate, Document or Certification, ID its
// kid or id): the item leaves "Needs attention" until its expiry changes.
func (h *Pages) Acknowledge(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Kind string `json:"Kind"`
		ID   string `json:"ID"`
	}
	if err := Decode(w, r, &in); err != nil {
		WriteError(w, r, err)
		return
	}
	err := h.Start.Acknowledge(r.Context(), h.actor(r), in.Kind, in.ID)
	if e, ok := refusedHere(r, err, http.StatusNotFound); ok {
		h.Refused(w, r, "Not acknowledged: ", "/")(e)
		return
	}
	h.Saved(w, r, Saved{Err: err, Flash: "Acknowledged: it is left out of Needs attention until its expiry date changes.", Page: "/", Status: http.StatusNoContent})
}
