package handlers

import (
	"net/http"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/paths"

	"github.com/a-h/templ"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Contacts serves the contacts of an organisation.
type Contacts struct {
	*Org
	Contacts *directory.Contacts
	Types    *directory.References // the contact types, for the form's select
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
	items, total, err := h.Contacts.List(r.Context(), o.OrganisationID, sortField, desc, page, size)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	RespondPage(w, r, http.StatusOK, NewPaged(items, page, size, total), func() (templ.Component, error) {
		path := paths.OrganisationTab(o.OrganisationID, "contacts")
		p := views.ContactsPage{OrgPage: views.NewOrgPage(h.Vocab, o, views.TabContacts), Contacts: items, SortLinks: map[string]string{}, SortField: sortField, SortDesc: desc, Total: total}
		for f := range store.ContactSortColumns {
			p.SortLinks[f] = SortLink(path, q, f, sortField, desc)
		}
		if r.Header.Get("HX-Request") == "true" && r.Header.Get("HX-Boosted") != "true" {
			return views.ContactsTable(p), nil
		}
		return views.ContactsTab(h.Shell(r, "Contacts", "organisations", views.OrgCrumbs(&o, "Contacts")...), p), nil
	})
}

// GetContact is one contact.
func (h *Contacts) GetContact(w http.ResponseWriter, r *http.Request) {
	c, err := h.Contacts.Get(r.Context(), PathParam(r, "orgID"), PathParam(r, "contactID"))
	writeTagged(w, r, c, err)
}

func (h *Contacts) renderContactForm(w http.ResponseWriter, r *http.Request, status int, o store.Organisation, c store.Contact, isNew bool, errs map[string]string) {
	opts, err := typeOptions(r.Context(), h.Types, c.ContactType)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	action := paths.OrganisationTab(o.OrganisationID, "contacts")
	if !isNew {
		action += "/" + c.ContactID
	}
	f := views.ContactForm{OrgID: o.OrganisationID, Contact: c, IsNew: isNew, Action: action, Errors: errs, TypeOpts: opts}
	if !isNew {
		f.Version = editVersion(r, status, c, func() (store.Contact, error) { return h.Contacts.Get(r.Context(), o.OrganisationID, c.ContactID) },
			map[string]string{"EmailAddress": "E-mail"}, nil)
	}
	title := "Edit contact" // as the heading says
	if isNew {
		title = "Add contact"
	}
	crumbs := views.OrgCrumbs(&o, "Contacts")
	crumbs[len(crumbs)-1].Href = paths.OrganisationTab(o.OrganisationID, "contacts")
	crumbs = append(crumbs, views.Crumb{Label: title})
	Render(w, r, status, views.ContactFormPage(h.Shell(r, title, "organisations", crumbs...), f))
}

// ContactForm shows the empty form (…/new) or a contact's (…/{contactID}/edit).
func (h *Contacts) ContactForm(w http.ResponseWriter, r *http.Request) {
	if o, c, ok := orgAndForm(h.Org, w, r, h.Contacts.Store.GetContact, "contactID", "Contact", store.Contact{}); ok {
		h.renderContactForm(w, r, http.StatusOK, o, c, c.ContactID == "", nil)
	}
}

// CreateContact adds a contact. The organisation is checked by the write
// itself (404 when it does not exist); the form is shown again only on a
// refusal, the one time this handler reads the organisation.
func (h *Contacts) CreateContact(w http.ResponseWriter, r *http.Request) {
	orgID := PathParam(r, "orgID")
	var in store.Contact
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	in.OrganisationID = orgID
	c, err := h.Contacts.Create(r.Context(), h.actor(r), in, refused)
	h.contactSaved(w, r, in, c, err, true)
}

// UpdateContact replaces a contact.
func (h *Contacts) UpdateContact(w http.ResponseWriter, r *http.Request) {
	o, ok := h.loadOrg(w, r)
	if !ok {
		return
	}
	orgID, id := o.OrganisationID, PathParam(r, "contactID")
	var in store.Contact
	refused, ok := decodeKept(w, r, &in, storedOf(&in, func() (store.Contact, error) { return h.Contacts.Get(r.Context(), orgID, id) }))
	if !ok {
		return
	}
	in.OrganisationID, in.ContactID = orgID, id
	useFormVersion(r)
	c, err := h.Contacts.Update(r.Context(), h.actor(r), in, refused, func(cur store.Contact) error { return CheckIfMatch(r, cur) })
	h.contactSaved(w, r, in, c, err, false)
}

// contactSaved answers a contact's create or update: the saved contact,
// the form again with a refusal beside its fields, or an error.
func (h *Contacts) contactSaved(w http.ResponseWriter, r *http.Request, in, c store.Contact, err error, isNew bool) {
	orgID := in.OrganisationID
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "Contact " + strings.TrimSpace(c.FirstName+" "+c.LastName) + " " + views.SaveWord(isNew) + ".", Page: paths.OrganisationTab(orgID, "contacts"),
			Status: http.StatusOK, Body: c, ETag: c}.Created(isNew, paths.API(paths.Contact(orgID, c.ContactID))))
	case stale(r, err) && !isNew:
		if o, ok := h.loadOrg(w, r); ok {
			h.renderContactForm(w, r, http.StatusPreconditionFailed, o, in, false, nil)
		}
	case inForm(r, err):
		if o, ok := h.loadOrg(w, r); ok {
			h.renderContactForm(w, r, AsError(err).Status, o, in, isNew, orMessage(err, "LastName"))
		}
	default:
		WriteError(w, r, err)
	}
}

// DeleteContact removes a contact: 204 on the API.
func (h *Contacts) DeleteContact(w http.ResponseWriter, r *http.Request) {
	orgID, id := PathParam(r, "orgID"), PathParam(r, "contactID")
	err := h.Contacts.Delete(r.Context(), h.actor(r), orgID, id, func(cur store.Contact) error { return CheckIfMatch(r, cur) })
	h.Saved(w, r, Saved{Err: err, Flash: "The contact was deleted.", Page: paths.OrganisationTab(orgID, "contacts"), Status: http.StatusNoContent})
}
