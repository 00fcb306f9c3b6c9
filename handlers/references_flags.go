package handlers

import (
	"net/http"
	"slices"
	"strings"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// References serves Reference Data flags.
type References struct {
	*Base
	Flags *directory.Flags
}

const flagsPath = "/references/flags"

func (h *References) flagsPage(w http.ResponseWriter, r *http.Request, status int) {
	flags, err := h.Flags.List(r.Context(), "")
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Render(w, r, status, views.Flags(h.referenceShell(r, "Flags", "Flags", flagsPath), views.FlagsPage{Flags: flags}))
}

// NewFlag is the form that adds a flag; a refused one comes back to it.
func (h *References) NewFlag(w http.ResponseWriter, r *http.Request) {
	h.newFlagPage(w, r, http.StatusOK, views.FlagsPage{})
}

func (h *References) newFlagPage(w http.ResponseWriter, r *http.Request, status int, p views.FlagsPage) {
	Render(w, r, status, views.FlagNew(h.referenceShell(r, "Add flag", "Flags", flagsPath, views.Crumb{Label: "Add flag"}), views.NewFlagPage(p, directory.FlagTypes)))
}

// ListFlags lists flag definitions (Type= filters).
func (h *References) ListFlags(w http.ResponseWriter, r *http.Request) {
	if HTMLPage(w, r, func() { h.flagsPage(w, r, http.StatusOK) }) {
		return
	}
	typ := r.URL.Query().Get("Type")
	if typ != "" && !slices.Contains(directory.FlagTypes, typ) {
		WriteError(w, r, CodeInvalidParameter.New("Type must be one of "+strings.Join(directory.FlagTypes, ", ")))
		return
	}
	flags, err := h.Flags.List(r.Context(), typ)
	writeFound(w, r, flags, err)
}

// GetFlag is one flag.
func (h *References) GetFlag(w http.ResponseWriter, r *http.Request) {
	f, err := h.Flags.Get(r.Context(), PathParam(r, "flagID"))
	writeTagged(w, r, f, err)
}

// CreateFlag adds a flag definition.
func (h *References) CreateFlag(w http.ResponseWriter, r *http.Request) {
	var in store.Flag
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	f, err := h.Flags.Create(r.Context(), h.actor(r), in, refused)
	if e, ok := refusedHere(r, err); ok {
		h.newFlagPage(w, r, e.Status, views.FlagsPage{Form: in, Errors: orMessage(err, "Name")})
		return
	}
	h.Saved(w, r, Saved{Err: err, Flash: "Flag " + f.Name + " " + views.SaveWord(true) + ".", Page: flagsPath,
		Status: http.StatusCreated, Body: f, ETag: f, Location: "/api/references/flags/" + f.FlagID})
}

// UpdateFlag changes a flag's name, description or status.
func (h *References) UpdateFlag(w http.ResponseWriter, r *http.Request) {
	var in store.Flag
	id := PathParam(r, "flagID")
	refused, ok := decodeKept(w, r, &in, storedOf(&in, func() (store.Flag, error) { return h.Flags.Get(r.Context(), id) }))
	if !ok {
		return
	}
	f, err := h.Flags.Update(r.Context(), h.actor(r), id, in, refused, func(cur store.Flag) error { return CheckIfMatch(r, cur) })
	if e, ok := refusedHere(r, err); ok && e.Status != http.StatusPreconditionFailed {
		row := "the flag" // named as stored: the name sent may be the refused value
		if cur, gerr := h.Flags.Get(r.Context(), id); gerr == nil {
			row = cur.Name
		}
		rowRefused(h.Base, r, row, e)
		h.flagsPage(w, r, e.Status)
		return
	}
	h.Saved(w, r, Saved{Err: err, Flash: "Flag " + f.Name + " is " + f.Status + ".", Page: flagsPath, Status: http.StatusOK, Body: f, ETag: f})
}
