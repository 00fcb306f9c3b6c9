package handlers

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// OwnConfiguration is Reference Data > Federation entity configuration: the
// directory's own entity configuration as /.well-known/openid-federation
// serves it (docs/design.md §13), made by the endpoint's builder and
// decoded for reading.
func (h *Federation) OwnConfiguration(w http.ResponseWriter, r *http.Request) {
	shell := h.Shell(r, "Federation entity configuration", "reference",
		views.Crumb{Label: "Reference Data", Href: "/references"}, views.Crumb{Label: "Federation entity configuration"})
	p := views.NewOwnConfigPage(h.Anchor.EntityID)
	if h.Anchor.Keys == nil || h.Anchor.EntityID == "" {
		p.NotConfigured = "The directory has no federation entity ID or signing keys."
		Render(w, r, http.StatusOK, views.OwnConfiguration(shell, p))
		return
	}
	now := h.Now()
	tok, err := h.Anchor.EntityConfiguration(r.Context(), now)
	switch {
	case errors.Is(err, store.ErrNotFound):
		// No Active federation key: the endpoint answers server_error.
		p.NotConfigured = "The directory has no federation signing key, so it serves no entity configuration."
	case err != nil:
		WriteError(w, r, fmt.Errorf("federation: entity configuration: %w", err))
		return
	default:
		if err := p.Decode(tok, now); err != nil {
			WriteError(w, r, err)
			return
		}
		if stored, err := h.Anchor.Keys.Keys(r.Context()); err == nil {
			p.SetKeyStatus(stored)
		}
	}
	Render(w, r, http.StatusOK, views.OwnConfiguration(shell, p))
}
