package handlers

import (
	"context"
	"net/http"
	"net/url"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// superUserStatus is the status write of updateAdminStatus.
type superUserStatus interface {
	SetSuperUserStatus(ctx context.Context, a store.Audit, email, status string, check func(store.SuperUser) error) (store.SuperUser, error)
}

// SuperUsers serves /api/users/super and Reference Data > Super Users.
type SuperUsers struct {
	*Base
	Admins *directory.Administrators
	Store  superUserStatus
}

type superUserIn struct {
	Email  string `json:"Email"`
	Status string `json:"Status"`
}

// validAdminStatus is the status an administrator can be given (directory.ValidAdminStatus).
func validAdminStatus(s string) bool { return directory.ValidAdminStatus(s) }

func (h *SuperUsers) shell(r *http.Request) views.Shell {
	return h.Shell(r, "Super Users", "reference", views.Crumb{Label: "Reference Data", Href: "/references"}, views.Crumb{Label: "Super Users"})
}

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
	Respond(w, r, status, users, views.SuperUsers(h.shell(r), views.SuperUsersPage{Users: users, Me: PrincipalFrom(r.Context()).Email}))
}

// New is the form that adds a Super User.
func (h *SuperUsers) New(w http.ResponseWriter, r *http.Request) {
	h.newPage(w, r, http.StatusOK, views.SuperUsersPage{})
}

func (h *SuperUsers) newPage(w http.ResponseWriter, r *http.Request, status int, p views.SuperUsersPage) {
	Render(w, r, status, views.NewSuperUser(h.Shell(r, "New Super User", "reference", views.Crumb{Label: "Reference Data", Href: "/references"},
		views.Crumb{Label: "Super Users", Href: "/references/super-users"}, views.Crumb{Label: "New Super User"}), p))
}

// Get answers one Super User.
func (h *SuperUsers) Get(w http.ResponseWriter, r *http.Request) {
	u, err := h.Admins.SuperUser(r.Context(), PathParam(r, "email"))
	if err != nil {
		WriteError(w, r, err)
		return
	}
	SetETag(w, u)
	Respond(w, r, http.StatusOK, u, nil)
}

// Create adds a Super User: 201, 409 when the e-mail exists, 422 on bad input.
func (h *SuperUsers) Create(w http.ResponseWriter, r *http.Request) {
	var in superUserIn
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	u, err := h.Admins.CreateSuperUser(r.Context(), store.Audit{Actor: PrincipalFrom(r.Context()).Email}, in.Email, in.Status, refused)
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: u.Email + " is now a Super User (" + u.Status + ").", Page: "/references/super-users",
			Status: http.StatusCreated, Body: u, ETag: u, Location: "/api/users/super/" + url.PathEscape(u.Email)})
	case inForm(r, err):
		h.newPage(w, r, AsError(err).Status, views.SuperUsersPage{Email: in.Email, Status: in.Status, Errors: orMessage(err, "Email")})
	default:
		WriteError(w, r, err)
	}
}

// Update sets a Super User's Status (the only removal is Inactive).
func (h *SuperUsers) Update(w http.ResponseWriter, r *http.Request) {
	updateAdminStatus(h.Base, w, r, "Super User", "/references/super-users", h.Store.SetSuperUserStatus,
		func(u store.SuperUser) (string, string) { return u.Email, u.Status }, func(status int) { h.list(w, r, status) })
}
