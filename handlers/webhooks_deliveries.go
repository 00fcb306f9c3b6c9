package handlers

import (
	"net/http"
	"strconv"

	"github.com/trustframe/trustframe/views"
)

// Deliveries answers a webhook's delivery log, newest first (paged).
func (h *Webhooks) Deliveries(w http.ResponseWriter, r *http.Request) {
	page, size, err := PageParams(r.URL.Query())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	ds, total, err := h.Hooks.Deliveries(r.Context(), PathParam(r, "webhookID"), page, size)
	writeFound(w, r, NewPaged(ds, page, size, total), err)
}

// Redeliver queues one delivery again, now.
func (h *Webhooks) Redeliver(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(PathParam(r, "deliveryID"), 10, 64) // not a number: no such delivery
	d, wh, err := h.Hooks.Redeliver(r.Context(), h.actor(r), PathParam(r, "webhookID"), id)
	h.Saved(w, r, Saved{Err: err, Flash: views.RedeliveredFlash(id, wh.Status), Page: webhookPath(wh.WebhookID), Status: http.StatusAccepted, Body: d})
}

// SendTest queues one test event to this webhook alone (audit action
// "test", body type "Webhook.test", naming the webhook and who sent it),
// sent, signed and retried like any delivery: 202 with the delivery, or
// the page with a flash; the log shows the attempt once the deliverer has
// made it. A webhook that is not Active is refused (409
// webhook_not_active): its deliveries are not sent (docs/decisions.md,
// "Test events").
func (h *Webhooks) SendTest(w http.ResponseWriter, r *http.Request) {
	id := PathParam(r, "webhookID")
	t, err := h.Hooks.SendTest(r.Context(), h.actor(r), id)
	if err != nil && inForm(r, err) {
		h.Flash.Refuse(r.Context(), "No test event sent. "+AsError(err).Message)
		Redirect(w, r, webhookPath(id))
		return
	}
	watch := webhookPath(id) + "?watch=" + strconv.FormatInt(t.Delivery.DeliveryID, 10)
	h.Saved(w, r, Saved{Err: err, Flash: views.TestEventFlash(t.Delivery.DeliveryID, t.Ahead, t.RetryAt), Page: watch, Status: http.StatusAccepted, Body: t.Delivery})
}
