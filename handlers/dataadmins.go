package handlers

import (
	"net/http"
	"net/url"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// DataAdmins serves /api/users/data-administrators and Reference Data > Data Administrators.
type DataAdmins struct {
	*Base
	Admins *directory.Administrators
}

const dataAdminsPath = "/references/data-administrators"

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
	Respond(w, r, status, admins, views.DataAdmins(h.referenceShell(r, "Data Administrators", "Data Administrators", dataAdminsPath), views.DataAdminsPage{Admins: admins}))
}

// New shows the invitation form.
func (h *DataAdmins) New(w http.ResponseWriter, r *http.Request) {
	h.newPage(w, r, http.StatusOK, "", nil)
}

func (h *DataAdmins) newPage(w http.ResponseWriter, r *http.Request, status int, email string, errs map[string]string) {
	const title = "Add Data Administrator"
	Render(w, r, status, views.NewDataAdmin(h.referenceShell(r, title, "Data Administrators", dataAdminsPath, views.Crumb{Label: title}), email, errs))
}

// Get answers one Data Administrator.
func (h *DataAdmins) Get(w http.ResponseWriter, r *http.Request) {
	a, err := h.Admins.DataAdministrator(r.Context(), PathParam(r, "email"))
	writeTagged(w, r, a, err)
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
	a, err := h.Admins.Invite(r.Context(), h.actor(r), in.Email, refused)
	if err != nil && inForm(r, err) {
		h.newPage(w, r, AsError(err).Status, in.Email, orMessage(err, "Email"))
		return
	}
	h.Saved(w, r, Saved{Err: err, Flash: "Invitation sent to " + a.Email + ".", Page: dataAdminsPath,
		Status: http.StatusCreated, Body: a, ETag: a, Location: "/api/users/data-administrators/" + url.PathEscape(a.Email)})
}

// Update deactivates or reactivates a Data Administrator.
func (h *DataAdmins) Update(w http.ResponseWriter, r *http.Request) {
	updateAdminStatus(h.Base, w, r, "Data Administrator", dataAdminsPath, h.Admins.Store.SetDataAdministratorStatus,
		func(a store.DataAdministrator) (string, string) { return a.Email, a.Status }, func(status int) { h.list(w, r, status) })
}
