package handlers

import (
	"context"
	"net/http"
	"net/url"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

type superUserStore interface {
	ListSuperUsers(ctx context.Context) ([]store.SuperUser, error)
	GetSuperUser(ctx context.Context, email string) (store.SuperUser, error)
	CreateSuperUser(ctx context.Context, a store.Audit, email, status string) (store.SuperUser, error)
	SetSuperUserStatus(ctx context.Context, a store.Audit, email, status string, check func(store.SuperUser) error) (store.SuperUser, error)
}

// SuperUsers serves /api/users/super and Reference Data > Super Users.
type SuperUsers struct {
	*Base
	Store superUserStore
}

type superUserIn struct {
	Email  string `json:"Email"`
	Status string `json:"Status"`
}

func validAdminStatus(s string) bool { return s == "Active" || s == "Inactive" }

func (h *SuperUsers) page(r *http.Request, p views.SuperUsersPage) (views.SuperUsersPage, error) {
	users, err := h.Store.ListSuperUsers(r.Context())
	p.Users, p.Me = users, PrincipalFrom(r.Context()).Email
	return p, err
}

func (h *SuperUsers) shell(r *http.Request) views.Shell {
	return h.Shell(r, "Super Users", "reference", views.Crumb{Label: "Reference Data", Href: "/references"}, views.Crumb{Label: "Super Users"})
}

// List answers every Super User.
func (h *SuperUsers) List(w http.ResponseWriter, r *http.Request) {
	h.list(w, r, http.StatusOK)
}

func (h *SuperUsers) list(w http.ResponseWriter, r *http.Request, status int) {
	p, err := h.page(r, views.SuperUsersPage{})
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Respond(w, r, status, p.Users, views.SuperUsers(h.shell(r), p))
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
	u, err := h.Store.GetSuperUser(r.Context(), PathParam(r, "email"))
	if err != nil {
		WriteError(w, r, directory.Named(err, "Super User"))
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
	fields := map[string]string{}
	if msg := adminEmailProblem(in.Email); msg != "" {
		fields["Email"] = msg
	}
	if !validAdminStatus(in.Status) {
		fields["Status"] = "Status must be Active or Inactive."
	}
	fields = withRefused(fields, refused)
	var err error
	var u store.SuperUser
	if len(fields) > 0 {
		err = Validation(fields)
	} else {
		u, err = h.Store.CreateSuperUser(r.Context(), store.Audit{Actor: PrincipalFrom(r.Context()).Email}, in.Email, in.Status)
		err = directory.Named(err, "Super User")
	}
	h.Saved(w, r, Saved{Err: err, Flash: u.Email + " is now a Super User (" + u.Status + ").", Page: "/references/super-users",
		Status: http.StatusCreated, Body: u, ETag: u, Location: "/api/users/super/" + url.PathEscape(u.Email),
		Again: anyAgain(func(e *Error) {
			h.newPage(w, r, e.Status, views.SuperUsersPage{Email: in.Email, Status: in.Status, Errors: orMessage(err, "Email")})
		})})
}

// Update sets a Super User's Status (the only removal is Inactive).
func (h *SuperUsers) Update(w http.ResponseWriter, r *http.Request) {
	updateAdminStatus(h.Base, w, r, "Super User", "/references/super-users", h.Store.SetSuperUserStatus,
		func(u store.SuperUser) (string, string) { return u.Email, u.Status }, func(status int) { h.list(w, r, status) })
}
