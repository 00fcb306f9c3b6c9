package handlers

import (
	"net/http"
	"net/url"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// SuperUsers serves /api/users/super and Reference Data > Super Users.
type SuperUsers struct {
	*Base
	Admins *directory.Administrators
}

const superUsersPath = "/references/super-users"

// List answers every Super User.
func (h *SuperUsers) List(w http.ResponseWriter, r *http.Request) {
	h.list(w, r, http.StatusOK)
}

func (h *SuperUsers) list(w http.ResponseWriter, r *http.Request, status int) {
	users, err := h.Admins.SuperUsers(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	p := views.SuperUsersPage{Users: users, Me: PrincipalFrom(r.Context()).Email}
	Respond(w, r, status, users, views.SuperUsers(h.referenceShell(r, "Super Users", "Super Users", superUsersPath), p))
}

// New is the form that adds a Super User.
func (h *SuperUsers) New(w http.ResponseWriter, r *http.Request) {
	h.newPage(w, r, http.StatusOK, views.SuperUsersPage{})
}

func (h *SuperUsers) newPage(w http.ResponseWriter, r *http.Request, status int, p views.SuperUsersPage) {
	const title = "Add Super User"
	Render(w, r, status, views.NewSuperUser(h.referenceShell(r, title, "Super Users", superUsersPath, views.Crumb{Label: title}), p))
}

// Get answers one Super User.
func (h *SuperUsers) Get(w http.ResponseWriter, r *http.Request) {
	u, err := h.Admins.SuperUser(r.Context(), PathParam(r, "email"))
	writeTagged(w, r, u, err)
}

// Create adds a Super User: 201, 409 when the e-mail exists, 422 on bad input.
func (h *SuperUsers) Create(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Email  string `json:"Email"`
		Status string `json:"Status"`
	}
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	u, err := h.Admins.CreateSuperUser(r.Context(), h.actor(r), in.Email, in.Status, refused)
	if err != nil && inForm(r, err) {
		h.newPage(w, r, AsError(err).Status, views.SuperUsersPage{Email: in.Email, Status: in.Status, Errors: orMessage(err, "Email")})
		return
	}
	h.Saved(w, r, Saved{Err: err, Flash: "Super User " + u.Email + " " + views.SaveWord(true) + " (" + u.Status + ").", Page: superUsersPath,
		Status: http.StatusCreated, Body: u, ETag: u, Location: "/api/users/super/" + url.PathEscape(u.Email)})
}

// Update sets a Super User's Status (the only removal is Inactive).
func (h *SuperUsers) Update(w http.ResponseWriter, r *http.Request) {
	updateAdminStatus(h.Base, w, r, "Super User", superUsersPath, h.Admins.Store.SetSuperUserStatus,
		func(u store.SuperUser) (string, string) { return u.Email, u.Status }, func(status int) { h.list(w, r, status) })
}
