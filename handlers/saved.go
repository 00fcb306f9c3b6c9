package handlers

import (
	"context"
	"net/http"

	"github.com/a-h/templ"
)

// Saved is the outcome of a write, answered once for both
// representations by Base.Saved: the browser is sent to Page with Flash,
// the API gets Body with Status (and the ETag of Body, and Location when
// set); a refusal is shown again in the browser by Again, or answered as a
// problem.
type Saved struct {
	Err error
	// Again shows a refusal (below 500) in the browser, usually the form
	// with its field messages, and reports whether it did; nil or false
	// answers the refusal as an error page.
	Again func(e *Error) bool

	Flash string // the browser's message on Page
	Tell  func() // sets the browser's message itself, instead of Flash
	Page  string // where the browser goes (303, or HX-Redirect)

	Status   int    // API: 200, 201 or 204 (no body)
	Body     any    // API: the saved resource
	ETag     any    // API: send the ETag of this (the stored resource)
	Location string // API: the created resource's URL
}

// Saved answers a write (see Saved).
func (b *Base) Saved(w http.ResponseWriter, r *http.Request, s Saved) {
	vary(w)
	if s.Err != nil {
		e := AsError(s.Err)
		if !WantsJSON(r) && e.Status < 500 && s.Again != nil && s.Again(e) {
			return
		}
		WriteError(w, r, s.Err)
		return
	}
	if !WantsJSON(r) {
		switch {
		case s.Tell != nil:
			s.Tell()
		case s.Flash != "":
			b.Flash.Put(r.Context(), s.Flash)
		}
		Redirect(w, r, s.Page)
		return
	}
	if s.Location != "" {
		w.Header().Set("Location", s.Location)
	}
	if s.ETag != nil {
		SetETag(w, s.ETag)
	}
	if s.Status == http.StatusNoContent {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	WriteJSON(w, s.Status, s.Body)
}

// Refused shows a browser refusal as a flash on page (a button that
// changes one thing, not a form): formAgain(b.Refused(…)) is its Again.
func (b *Base) Refused(w http.ResponseWriter, r *http.Request, prefix, page string) func(e *Error) {
	return func(e *Error) {
		b.Flash.Refuse(r.Context(), prefix+e.Message)
		Redirect(w, r, page)
	}
}

// RespondPage is Respond with the HTML built only when HTML is asked for:
// page may fail (a store read for the page only), answered as an error.
func RespondPage(w http.ResponseWriter, r *http.Request, status int, data any, page func() (templ.Component, error)) {
	if WantsJSON(r) {
		WriteJSON(w, status, data)
		return
	}
	v, err := page()
	if err != nil {
		WriteError(w, r, err)
		return
	}
	if v == nil {
		return // page answered itself
	}
	Render(w, r, status, v)
}

// HTMLPage answers an HTML request with page and reports true; a JSON
// request is left to the caller (false). For handlers whose page is built
// from other data than the API answer.
func HTMLPage(w http.ResponseWriter, r *http.Request, page func()) bool {
	if WantsJSON(r) {
		return false
	}
	page()
	return true
}

// inForm reports whether a browser's refusal is shown in the form it came
// from, beside its fields: every refusal below 500 but a missing resource
// (an error page says that). The API answers every refusal as a problem.
func inForm(r *http.Request, err error) bool {
	s := AsError(err).Status
	return !WantsJSON(r) && s < 500 && s != http.StatusNotFound
}

// refusedHere reports err as a refusal the browser is shown in place, on
// the page or form it came from, instead of an error page: the request is
// the console's, err is a refusal (below 500), and its status is one of
// want — or, when want is empty, anything but a missing resource.
func refusedHere(r *http.Request, err error, want ...int) (*Error, bool) {
	if err == nil || WantsJSON(r) {
		return nil, false
	}
	e := AsError(err)
	if e.Status >= 500 {
		return nil, false
	}
	if len(want) == 0 {
		return e, e.Status != http.StatusNotFound
	}
	for _, s := range want {
		if e.Status == s {
			return e, true
		}
	}
	return nil, false
}

// formAgain is the Again of a form: show shows the form with the refusal,
// for every refusal but a missing resource (an error page says that).
func formAgain(show func(e *Error)) func(e *Error) bool {
	return func(e *Error) bool {
		if e.Status == http.StatusNotFound {
			return false
		}
		show(e)
		return true
	}
}

// anyAgain is the Again of a form that shows every refusal in place.
func anyAgain(show func(e *Error)) func(e *Error) bool {
	return func(e *Error) bool { show(e); return true }
}

// Created makes s the answer to a create when isNew: 201 with Location.
func (s Saved) Created(isNew bool, location string) Saved {
	if isNew {
		s.Status, s.Location = http.StatusCreated, location
	}
	return s
}

// pageAgain is the Again of a page that holds several forms: a missing
// resource or a stale ETag is an error page, the rest is shown in place.
func pageAgain(show func(e *Error)) func(e *Error) bool {
	return func(e *Error) bool {
		if e.Status == http.StatusPreconditionFailed {
			return false
		}
		return formAgain(show)(e)
	}
}

// PageOrList answers page in the browser, and on the API what list reads
// (a list page whose HTML is built from other reads than its JSON).
func PageOrList[T any](w http.ResponseWriter, r *http.Request, page func(), list func(context.Context) (T, error)) {
	if HTMLPage(w, r, page) {
		return
	}
	v, err := list(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, v)
}
