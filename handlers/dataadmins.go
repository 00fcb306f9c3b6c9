package handlers

import (
	"context"
	"net/http"
	"net/url"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// dataAdminStatus is the status write of updateAdminStatus.
type dataAdminStatus interface {
	SetDataAdministratorStatus(ctx context.Context, a store.Audit, email, status string, check func(store.DataAdministrator) error) (store.DataAdministrator, error)
}

// DataAdmins serves /api/users/data-administrators and Reference Data > Data Administrators.
type DataAdmins struct {
	*Base
	Admins *directory.Administrators
	Store  dataAdminStatus
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
	admins, err := h.Admins.DataAdministrators(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Respond(w, r, status, admins, views.DataAdmins(h.Shell(r, "Data Administrators", "reference", h.crumbs("")...), views.DataAdminsPage{Admins: admins}))
}

// New shows the invitation form.
func (h *DataAdmins) New(w http.ResponseWriter, r *http.Request) {
	h.newPage(w, r, http.StatusOK, "", nil)
}

func (h *DataAdmins) newPage(w http.ResponseWriter, r *http.Request, status int, email string, errs map[string]string) {
	Render(w, r, status, views.NewDataAdmin(h.Shell(r, "New Data Administrator", "reference", h.crumbs("New Data Administrator")...), email, errs))
}

// Get answers one Data Administrator.
func (h *DataAdmins) Get(w http.ResponseWriter, r *http.Request) {
	a, err := h.Admins.DataAdministrator(r.Context(), PathParam(r, "email"))
	if err != nil {
		WriteError(w, r, err)
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
	a, err := h.Admins.Invite(r.Context(), store.Audit{Actor: PrincipalFrom(r.Context()).Email}, in.Email, refused)
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "Invitation sent to " + a.Email + ".", Page: "/references/data-administrators",
			Status: http.StatusCreated, Body: a, ETag: a, Location: "/api/users/data-administrators/" + url.PathEscape(a.Email)})
	case inForm(r, err):
		h.newPage(w, r, AsError(err).Status, in.Email, orMessage(err, "Email"))
	default:
		WriteError(w, r, err)
	}
}

// Update deactivates or reactivates a Data Administrator.
func (h *DataAdmins) Update(w http.ResponseWriter, r *http.Request) {
	updateAdminStatus(h.Base, w, r, "Data Administrator", "/references/data-administrators", h.Store.SetDataAdministratorStatus,
		func(a store.DataAdministrator) (string, string) { return a.Email, a.Status }, func(status int) { h.list(w, r, status) })
}
