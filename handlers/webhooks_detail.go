package handlers

import (
	"net/http"
	"strconv"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// detail renders a webhook's page: its form (errs beside its fields), the
// secret just made and a notice, and a page of its delivery log.
func (h *Webhooks) detail(w http.ResponseWriter, r *http.Request, status int, wh store.Webhook, secret string, errs map[string]string, notice string) {
	q := r.URL.Query()
	page, _, err := PageParams(q)
	if err != nil {
		page = 0
	}
	ds, total, err := h.Hooks.Deliveries(r.Context(), wh.WebhookID, page, views.WebhookLogSize)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	watch, _ := strconv.ParseInt(q.Get("watch"), 10, 64) // not a number: nothing is watched
	p := views.NewWebhookPage(wh, errs, ds, total, page, watch, time.Now())
	p.Secret, p.Notice = secret, notice
	Render(w, r, status, views.WebhookDetail(h.referenceShell(r, "Webhook", "Webhooks", webhooksPath, views.Crumb{Label: wh.URL}), p))
}

// Get answers one webhook (the page: its form and delivery log).
func (h *Webhooks) Get(w http.ResponseWriter, r *http.Request) {
	wh, err := h.Hooks.Get(r.Context(), PathParam(r, "webhookID"))
	if err == nil && HTMLPage(w, r, func() { h.detail(w, r, http.StatusOK, wh, "", nil, "") }) {
		return
	}
	writeTagged(w, r, wh, err)
}

// Update replaces the writable fields (Url, Description, SubjectTypes,
// Status); setting a Paused webhook Active resumes its deliveries.
func (h *Webhooks) Update(w http.ResponseWriter, r *http.Request) {
	cur, err := h.Hooks.Get(r.Context(), PathParam(r, "webhookID"))
	if err != nil {
		WriteError(w, r, err)
		return
	}
	var in webhookIn
	refused, ok := decodeKept(w, r, &in, func() map[string]directory.StoredText { return directory.StoredTexts(&in, cur) })
	if !ok {
		return
	}
	page := webhookPath(cur.WebhookID)
	if !WantsJSON(r) && in.URL == "" && len(in.SubjectTypes) == 0 && in.Status != "" {
		// The list's Activate/Deactivate button sends the Status only; the
		// user goes back to the list.
		in.URL, in.Description, in.SubjectTypes = cur.URL, cur.Description, cur.SubjectTypes
		page = webhooksPath
	}
	sent := in.input()
	wh, err := h.Hooks.Update(r.Context(), h.actor(r), cur.WebhookID, &sent, refused, func(cur store.Webhook) error { return CheckIfMatch(r, cur) })
	if err != nil && inForm(r, err) {
		h.detail(w, r, AsError(err).Status, sent.Over(cur), "", orMessage(err, "Url"), "")
		return
	}
	h.Saved(w, r, Saved{Err: err, Flash: "Webhook " + wh.URL + " " + views.SaveWord(false) + " (" + wh.Status + ").", Page: page, Status: http.StatusOK, Body: wh, ETag: wh})
}

// RotateSecret replaces a webhook's secret and answers the new one, once.
func (h *Webhooks) RotateSecret(w http.ResponseWriter, r *http.Request) {
	wh, secret, err := h.Hooks.RotateSecret(r.Context(), h.actor(r), PathParam(r, "webhookID"))
	if err != nil {
		WriteError(w, r, err)
		return
	}
	h.withSecret(w, r, http.StatusOK, wh, secret, "New secret made. Copy it now: it is not shown again; the old one no longer signs.")
}

// Delete removes a webhook and its delivery log.
func (h *Webhooks) Delete(w http.ResponseWriter, r *http.Request) {
	wh, err := h.Hooks.Delete(r.Context(), h.actor(r), PathParam(r, "webhookID"))
	h.Saved(w, r, Saved{Err: err, Flash: "Webhook " + wh.URL + " was deleted.", Page: webhooksPath, Status: http.StatusNoContent})
}
