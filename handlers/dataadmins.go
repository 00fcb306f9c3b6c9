package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

type dataAdminStore interface {
	ListDataAdministrators(ctx context.Context) ([]store.DataAdministrator, error)
	GetDataAdministrator(ctx context.Context, email string) (store.DataAdministrator, error)
	InviteDataAdministrator(ctx context.Context, a store.Audit, email string, msg store.Invitation) (store.DataAdministrator, int64, error)
	SetDataAdministratorStatus(ctx context.Context, a store.Audit, email, status string, check func(store.DataAdministrator) error) (store.DataAdministrator, error)
	MarkDelivered(ctx context.Context, id int64) error
	MarkSendFailed(ctx context.Context, id int64, reason string) (time.Time, error)
}

// DataAdmins serves /api/users/data-administrators and Reference Data > Data Administrators.
type DataAdmins struct {
	*Base
	Store  dataAdminStore
	Mailer Mailer // nil: the outbox and the log only
}

func (h *DataAdmins) crumbs(last string) []views.Crumb {
	c := []views.Crumb{{Label: "Reference Data", Href: "/references"}}
	if last == "" {
		return append(c, views.Crumb{Label: "Data Administrators"})
	}
	return append(c, views.Crumb{Label: "Data Administrators", Href: "/references/data-administrators"}, views.Crumb{Label: last})
}

// List answers every Data Administrator.
func (h *DataAdmins) List(w http.ResponseWriter, r *http.Request) {
	h.list(w, r, http.StatusOK)
}

func (h *DataAdmins) list(w http.ResponseWriter, r *http.Request, status int) {
	admins, err := h.Store.ListDataAdministrators(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Respond(w, r, status, admins, views.DataAdmins(h.Shell(r, "Data Administrators", "reference", h.crumbs("")...), views.DataAdminsPage{Admins: admins}))
}

// New shows the invitation form.
func (h *DataAdmins) New(w http.ResponseWriter, r *http.Request) {
	Render(w, r, http.StatusOK, views.NewDataAdmin(h.Shell(r, "New Data Administrator", "reference", h.crumbs("New Data Administrator")...), "", nil))
}

// Get answers one Data Administrator.
func (h *DataAdmins) Get(w http.ResponseWriter, r *http.Request) {
	a, err := h.Store.GetDataAdministrator(r.Context(), PathParam(r, "email"))
	if err != nil {
		WriteError(w, r, directory.Named(err, "Data Administrator"))
		return
	}
	SetETag(w, a)
	Respond(w, r, http.StatusOK, a, nil)
}

// Invite records an invitation and sends it.
func (h *DataAdmins) Invite(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Email string `json:"Email"`
	}
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	var err error
	var a store.DataAdministrator
	var outboxID int64
	actor := PrincipalFrom(r.Context()).Email
	if refused != nil {
		err = Validation(refused)
	} else if msg := adminEmailProblem(in.Email); msg != "" {
		err = Validation(map[string]string{"Email": msg})
	} else {
		msg := store.Invitation{
			To:      store.NormalizeEmail(in.Email),
			Subject: "You are invited to administer the trust framework",
			Body: fmt.Sprintf("Hello,\n\n%s invited you to be a Data Administrator of the trust framework.\n\nSign in at %s/login with this e-mail address (%s). You become Active at your first sign-in.\n",
				actor, h.BaseURL, store.NormalizeEmail(in.Email)),
		}
		a, outboxID, err = h.Store.InviteDataAdministrator(r.Context(), store.Audit{Actor: actor}, in.Email, msg)
		err = directory.Named(err, "Data Administrator")
		if err == nil {
			h.deliver(r.Context(), outboxID, msg)
		}
	}
	h.Saved(w, r, Saved{Err: err, Flash: "Invitation sent to " + a.Email + ".", Page: "/references/data-administrators",
		Status: http.StatusCreated, Body: a, ETag: a, Location: "/api/users/data-administrators/" + url.PathEscape(a.Email),
		Again: anyAgain(func(e *Error) {
			Render(w, r, e.Status, views.NewDataAdmin(h.Shell(r, "New Data Administrator", "reference", h.crumbs("New Data Administrator")...), in.Email, orMessage(err, "Email")))
		})})
}

// deliver sends the invitation; a failure leaves it in the outbox, to be
// tried again (store/outbox.go), and logs why.
func (h *DataAdmins) deliver(ctx context.Context, id int64, msg store.Invitation) {
	log := LoggerFrom(ctx)
	log.Info("invitation", "to", msg.To, "subject", msg.Subject, "body", msg.Body)
	if h.Mailer == nil {
		return
	}
	if err := h.Mailer.Send(ctx, msg.To, msg.Subject, msg.Body); err != nil {
		next, merr := h.Store.MarkSendFailed(context.WithoutCancel(ctx), id, err.Error())
		if merr != nil {
			log.Warn("outbox", "err", merr)
		}
		log.Warn("invitation not sent; it stays in the outbox and is tried again", "to", msg.To, "next_try", next, "err", err)
		return
	}
	if err := h.Store.MarkDelivered(ctx, id); err != nil {
		log.Warn("outbox", "err", err)
	}
}

// Update deactivates or reactivates a Data Administrator.
func (h *DataAdmins) Update(w http.ResponseWriter, r *http.Request) {
	updateAdminStatus(h.Base, w, r, "Data Administrator", "/references/data-administrators", h.Store.SetDataAdministratorStatus,
		func(a store.DataAdministrator) (string, string) { return a.Email, a.Status }, func(status int) { h.list(w, r, status) })
}
