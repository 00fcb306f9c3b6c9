package handlers

import (
	"context"
	"github.com/trustframe/trustframe/paths"
	"net/http"
	"strings"

	"github.com/a-h/templ"
	"github.com/trustframe/trustframe/formats"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Contacts serves the contacts of an organisation.
type Contacts struct {
	*Org
	Store contactStore
}

// contactStore is what Contacts reads and writes.
type contactStore interface {
	ListContacts(ctx context.Context, orgID, sortBy string, desc bool, page, size int) ([]store.Contact, int, error)
	GetContact(ctx context.Context, orgID, id string) (store.Contact, error)
	CreateContact(ctx context.Context, a store.Audit, c store.Contact) (store.Contact, error)
	UpdateContact(ctx context.Context, a store.Audit, c store.Contact, check func(store.Contact) error) (store.Contact, error)
	DeleteContact(ctx context.Context, a store.Audit, orgID, id string, check func(store.Contact) error) error
	ListContactTypes(ctx context.Context) ([]store.ReferenceItem, error)
}

// ListContacts is the contacts tab, sortable by every column.
func (h *Contacts) ListContacts(w http.ResponseWriter, r *http.Request) {
	o, ok := h.loadOrg(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	page, size, err := PageParams(q)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	sortField, desc, err := ParseSort(q, store.ContactSortColumns, "LastName")
	if err != nil {
		WriteError(w, r, err)
		return
	}
	size = ListSize(r, size)
	items, total, err := h.Store.ListContacts(r.Context(), o.OrganisationID, sortField, desc, page, size)
	if err != nil {
		WriteError(w, r, during("ListContacts", err))
		return
	}
	RespondPage(w, r, http.StatusOK, NewPaged(items, page, size, total), func() (templ.Component, error) {
		path := paths.OrganisationTab(o.OrganisationID, "contacts")
		p := views.ContactsPage{OrgPage: h.orgPage(o, views.TabContacts), Contacts: items, SortLinks: map[string]string{}, SortField: sortField, SortDesc: desc, Total: total}
		for f := range store.ContactSortColumns {
			p.SortLinks[f] = SortLink(path, q, f, sortField, desc)
		}
		if r.Header.Get("HX-Request") == "true" && r.Header.Get("HX-Boosted") != "true" {
			return views.ContactsTable(p), nil
		}
		return views.ContactsTab(h.Shell(r, "Contacts", "organisations", h.orgCrumbs(&o, "Contacts")...), p), nil
	})
}

// GetContact is one contact.
func (h *Contacts) GetContact(w http.ResponseWriter, r *http.Request) {
	c, err := h.Store.GetContact(r.Context(), PathParam(r, "orgID"), PathParam(r, "contactID"))
	if err != nil {
		WriteError(w, r, storeError(during("GetContact", err), "Contact"))
		return
	}
	SetETag(w, c)
	WriteJSON(w, http.StatusOK, c)
}

// dottedDomain reports an address whose domain has a dot and does not end
// with one: a contact is written to from outside, so name@localhost or
// name@example.com. is a typing mistake (docs/design.md §4). Contacts saved
// before the rule are read as they are; the rule applies when one is saved.
func dottedDomain(email string) bool {
	domain := email[strings.LastIndexByte(email, '@')+1:]
	return strings.Contains(domain, ".") && !strings.HasSuffix(domain, ".")
}

func validateContact(c *store.Contact) map[string]string {
	f := map[string]string{}
	required(f, "ContactType", c.ContactType, "Contact type")
	required(f, "LastName", c.LastName, "Last name")
	if !formats.ValidEmail(c.EmailAddress) {
		f["EmailAddress"] = "Enter a valid e-mail address."
	} else if !dottedDomain(c.EmailAddress) {
		f["EmailAddress"] = "Enter an e-mail address whose domain has a dot and does not end with one (name@example.com)."
	}
	for k, v := range map[string]string{"FirstName": c.FirstName, "LastName": c.LastName, "Department": c.Department, "PhoneNumber": c.PhoneNumber} {
		checkLen(f, k, v, 200)
	}
	return f
}

func (h *Contacts) renderContactForm(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, c store.Contact, isNew bool, errs map[string]string) {
	types, err := h.Store.ListContactTypes(r.Context())
	if err != nil {
		WriteError(w, r, during("ListContactTypes", err))
		return
	}
	var opts []views.Option
	for _, t := range types {
		if t.Status == "Active" || t.Name == c.ContactType {
			opts = append(opts, views.Option{Value: t.Name, Label: t.Name, Selected: t.Name == c.ContactType})
		}
	}
	action := paths.OrganisationTab(o.OrganisationID, "contacts")
	if !isNew {
		action += "/" + c.ContactID
	}
	f := views.ContactForm{OrgID: o.OrganisationID, Contact: c, IsNew: isNew, Action: action, Errors: errs, TypeOpts: opts}
	title := "Edit contact" // as the heading says
	if isNew {
		title = "New contact"
	}
	crumbs := h.orgCrumbs(&o, "Contacts")
	crumbs[len(crumbs)-1].Href = paths.OrganisationTab(o.OrganisationID, "contacts")
	crumbs = append(crumbs, views.Crumb{Label: title})
	Render(w, r, status, views.ContactFormPage(h.Shell(r, title, "organisations", crumbs...), f))
}

// ContactForm shows the empty form (…/new) or a contact's (…/{contactID}/edit).
func (h *Contacts) ContactForm(w http.ResponseWriter, r *http.Request) {
	if o, c, ok := orgAndForm(h.Org, w, r, h.Store.GetContact, "contactID", "Contact", store.Contact{}); ok {
		h.renderContactForm(w, r, http.StatusOK, o, c, c.ContactID == "", nil)
	}
}

// CreateContact adds a contact.
func (h *Contacts) CreateContact(w http.ResponseWriter, r *http.Request) {
	o, in, ok := orgAndBody(h.Org, w, r, func(o store.Organisation, in store.Contact, f map[string]string) {
		h.renderContactForm(w, r, http.StatusUnprocessableEntity, o, in, true, withRefused(validateContact(&in), f))
	})
	if !ok {
		return
	}
	in.OrganisationID = o.OrganisationID
	var c store.Contact
	var err error
	if errs := validateContact(&in); len(errs) > 0 {
		err = Validation(withStoreChecks(r.Context(), errs, func(ctx context.Context) error {
			_, err := h.Store.CreateContact(ctx, h.actor(r), in)
			return err
		}))
	} else {
		c, err = h.Store.CreateContact(r.Context(), h.actor(r), in)
		err = storeError(during("CreateContact", err), "Contact")
	}
	h.contactSaved(w, r, o, in, c, err, true, http.StatusCreated)
}

func (h *Contacts) contactSaved(w http.ResponseWriter, r *http.Request, o store.Organisation, in, c store.Contact, err error, isNew bool, status int) {
	s := Saved{Err: err, Flash: "Contact " + strings.TrimSpace(c.FirstName+" "+c.LastName) + " was saved.", Page: paths.OrganisationTab(o.OrganisationID, "contacts"),
		Status: status, Body: c, ETag: c}
	s.Again = formAgain(func(e *Error) { h.renderContactForm(w, r, e.Status, o, in, isNew, orMessage(err, "LastName")) })
	h.Saved(w, r, s.Created(isNew, paths.API(paths.Contact(o.OrganisationID, c.ContactID))))
}

// UpdateContact replaces a contact.
func (h *Contacts) UpdateContact(w http.ResponseWriter, r *http.Request) {
	o, in, ok := orgAndUpdate(h.Org, w, r, h.Store.GetContact, "contactID", func(o store.Organisation, in store.Contact, f map[string]string) {
		in.ContactID = PathParam(r, "contactID")
		h.renderContactForm(w, r, http.StatusUnprocessableEntity, o, in, false, withRefused(validateContact(&in), f))
	})
	if !ok {
		return
	}
	in.OrganisationID, in.ContactID = o.OrganisationID, PathParam(r, "contactID")
	var c store.Contact
	var err error
	if errs := validateContact(&in); len(errs) > 0 {
		err = Validation(withStoreChecks(r.Context(), errs, func(ctx context.Context) error {
			_, err := h.Store.UpdateContact(ctx, h.actor(r), in, func(store.Contact) error { return nil })
			return err
		}))
	} else {
		c, err = h.Store.UpdateContact(r.Context(), h.actor(r), in, func(cur store.Contact) error { return CheckIfMatch(r, cur) })
		err = storeError(during("UpdateContact", err), "Contact")
	}
	h.contactSaved(w, r, o, in, c, err, false, http.StatusOK)
}

// DeleteContact removes a contact: 204 on the API.
func (h *Contacts) DeleteContact(w http.ResponseWriter, r *http.Request) {
	orgID, id := PathParam(r, "orgID"), PathParam(r, "contactID")
	err := h.Store.DeleteContact(r.Context(), h.actor(r), orgID, id, func(cur store.Contact) error { return CheckIfMatch(r, cur) })
	h.Saved(w, r, Saved{Err: storeError(err, "Contact"), Flash: "The contact was deleted.", Page: paths.OrganisationTab(orgID, "contacts"), Status: http.StatusNoContent})
}
