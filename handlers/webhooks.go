package handlers

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
)

// Webhooks serves Reference Data > Webhooks and /api/references/webhooks
// (Super Users; docs/design.md §15).
type Webhooks struct {
	*Base
	Hooks *directory.Webhooks
}

// webhookIn is the writable part of a webhook; read-only members are
// accepted so that what GET returns can be sent back.
type webhookIn struct {
	URL          string   `json:"Url"`
	Description  string   `json:"Description"`
	SubjectTypes []string `json:"SubjectTypes"`
	Status       string   `json:"Status"`
	Secret       string   `json:"Secret" text:"raw"`
	WebhookID    any      `json:"WebhookId"`
	PausedReason any      `json:"PausedReason"`
	CreatedOn    any      `json:"CreatedOn"`
	UpdatedOn    any      `json:"UpdatedOn"`
}

// input is what the use cases read of in.
func (in webhookIn) input() directory.WebhookInput {
	out := directory.WebhookInput{URL: in.URL, Description: in.Description, SubjectTypes: in.SubjectTypes, Status: in.Status, Secret: in.Secret}
	if in.WebhookID != nil {
		id, _ := in.WebhookID.(string) // anything but a string is no id
		out.SentID = &id
	}
	return out
}

// SecretMemberHeader, set on an answer, names the member of its body that
// holds a secret shown once: whatever remembers answers (idempotent
// replays) keeps them without it. The header itself is not sent.
const SecretMemberHeader = "Trustframe-Secret-Member"

// webhookWithSecret is a webhook as answered once, at creation or
// rotation: with its secret.
type webhookWithSecret struct {
	store.Webhook
	Secret string `json:"Secret"`
}

const webhooksPath = "/references/webhooks"

func webhookPath(id string) string { return webhooksPath + "/" + url.PathEscape(id) }

func (h *Webhooks) shell(r *http.Request, title string, last ...views.Crumb) views.Shell {
	c := []views.Crumb{{Label: "Reference Data", Href: "/references"}}
	if len(last) == 0 {
		c = append(c, views.Crumb{Label: "Webhooks"})
	} else {
		c = append(append(c, views.Crumb{Label: "Webhooks", Href: webhooksPath}), last...)
	}
	return h.Shell(r, title, "reference", c...)
}

func (h *Webhooks) actor(r *http.Request) store.Audit {
	return store.Audit{Actor: PrincipalFrom(r.Context()).Email}
}

// List answers every webhook; the page lists them.
func (h *Webhooks) List(w http.ResponseWriter, r *http.Request) {
	ws, err := h.Hooks.List(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Respond(w, r, http.StatusOK, ws, views.Webhooks(h.shell(r, "Webhooks"), views.WebhooksPage{Webhooks: ws}))
}

// New is the form that adds a webhook.
func (h *Webhooks) New(w http.ResponseWriter, r *http.Request) {
	h.newPage(w, r, http.StatusOK, views.WebhookForm{Status: "Active"})
}

func (h *Webhooks) newPage(w http.ResponseWriter, r *http.Request, status int, f views.WebhookForm) {
	f.AllTypes = store.WebhookSubjectTypes
	Render(w, r, status, views.NewWebhook(h.shell(r, "New webhook", views.Crumb{Label: "New webhook"}), f))
}

// Create adds a webhook: 201 with its secret, shown this once.
func (h *Webhooks) Create(w http.ResponseWriter, r *http.Request) {
	var in webhookIn
	refused, ok := decodeForm(w, r, &in)
	if !ok {
		return
	}
	sent := in.input()
	wh, secret, err := h.Hooks.Create(r.Context(), h.actor(r), &sent, refused)
	switch {
	case err == nil:
		w.Header().Set("Location", "/api"+webhookPath(wh.WebhookID))
		h.withSecret(w, r, http.StatusCreated, wh, secret, "Webhook created. Copy its secret now: it is not shown again.")
	case inForm(r, err):
		h.newPage(w, r, AsError(err).Status, views.WebhookForm{URL: sent.URL, Description: sent.Description, SubjectTypes: sent.SubjectTypes, Status: sent.Status, Errors: orMessage(err, "Url")})
	default:
		WriteError(w, r, err)
	}
}

// withSecret answers a webhook with its secret, shown this once: the page
// (not a redirect: the secret is in no URL and no flash) or the resource.
func (h *Webhooks) withSecret(w http.ResponseWriter, r *http.Request, status int, wh store.Webhook, secret, notice string) {
	w.Header().Set(SecretMemberHeader, "Secret")
	if HTMLPage(w, r, func() { h.detail(w, r, status, wh, secret, nil, notice) }) {
		return
	}
	SetETag(w, wh)
	WriteJSON(w, status, webhookWithSecret{Webhook: wh, Secret: secret})
}

func (h *Webhooks) get(w http.ResponseWriter, r *http.Request) (store.Webhook, bool) {
	wh, err := h.Hooks.Get(r.Context(), PathParam(r, "webhookID"))
	if err != nil {
		WriteError(w, r, err)
		return wh, false
	}
	return wh, true
}

// detail renders a webhook's page: its form, secret actions and delivery log.
func (h *Webhooks) detail(w http.ResponseWriter, r *http.Request, status int, wh store.Webhook, secret string, errs map[string]string, notice string) {
	page, _, err := PageParams(r.URL.Query())
	if err != nil {
		page = 0
	}
	ds, total, err := h.Hooks.Deliveries(r.Context(), wh.WebhookID, page, 20)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	f := views.WebhookForm{WebhookID: wh.WebhookID, URL: wh.URL, Description: wh.Description, SubjectTypes: wh.SubjectTypes, Status: wh.Status,
		PausedReason: wh.PausedReason, AllTypes: store.WebhookSubjectTypes, Errors: errs}
	p := views.WebhookPage{Form: f, Secret: secret, Notice: notice, Deliveries: ds, Total: total, Page: page}
	// After Send test event (?watch=its delivery): the log reloads itself
	// while that delivery is untried, for a minute at most — one waiting
	// behind a failing delivery's retry is not watched for hours, and a
	// tab left open does not poll (nor keep its session) for ever.
	if watch, err := strconv.ParseInt(r.URL.Query().Get("watch"), 10, 64); err == nil && page == 0 && wh.Status == "Active" {
		for _, d := range ds {
			if d.DeliveryID == watch && d.Status == "Pending" && d.Attempts == 0 && time.Since(d.CreatedOn) < time.Minute {
				p.PollURL = webhookPath(wh.WebhookID) + "?watch=" + strconv.FormatInt(watch, 10)
			}
		}
	}
	if page > 0 {
		p.PrevURL = webhookPath(wh.WebhookID) + "?page=" + strconv.Itoa(PrevPage(page, (total+19)/20))
	}
	if (page+1)*20 < total {
		p.NextURL = webhookPath(wh.WebhookID) + "?page=" + strconv.Itoa(page+1)
	}
	label := wh.URL
	Render(w, r, status, views.WebhookDetail(h.shell(r, "Webhook", views.Crumb{Label: label}), p))
}

// Get answers one webhook (the page: its form and delivery log).
func (h *Webhooks) Get(w http.ResponseWriter, r *http.Request) {
	wh, ok := h.get(w, r)
	if !ok {
		return
	}
	if HTMLPage(w, r, func() { h.detail(w, r, http.StatusOK, wh, "", nil, "") }) {
		return
	}
	SetETag(w, wh)
	WriteJSON(w, http.StatusOK, wh)
}

// Update replaces the writable fields (Url, Description, SubjectTypes,
// Status); setting a Paused webhook Active resumes its deliveries.
func (h *Webhooks) Update(w http.ResponseWriter, r *http.Request) {
	cur, ok := h.get(w, r)
	if !ok {
		return
	}
	var in webhookIn
	refused, ok := decodeKept(w, r, &in, func() map[string]storedText { return textOf(&in, cur) })
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
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: "Webhook " + wh.URL + " saved (" + wh.Status + ").", Page: page, Status: http.StatusOK, Body: wh, ETag: wh})
	case inForm(r, err):
		cur.URL, cur.Description, cur.SubjectTypes = sent.URL, sent.Description, sent.SubjectTypes
		if sent.Status != "" {
			cur.Status = sent.Status
		}
		h.detail(w, r, AsError(err).Status, cur, "", orMessage(err, "Url"), "")
	default:
		WriteError(w, r, err)
	}
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
	h.Saved(w, r, Saved{Err: err, Flash: "Webhook " + wh.URL + " deleted.", Page: webhooksPath, Status: http.StatusNoContent})
}

// Deliveries answers a webhook's delivery log, newest first (paged).
func (h *Webhooks) Deliveries(w http.ResponseWriter, r *http.Request) {
	page, size, err := PageParams(r.URL.Query())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	ds, total, err := h.Hooks.Deliveries(r.Context(), PathParam(r, "webhookID"), page, size)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, NewPaged(ds, page, size, total))
}

// Redeliver queues one delivery again, now.
func (h *Webhooks) Redeliver(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(PathParam(r, "deliveryID"), 10, 64) // not a number: no such delivery
	d, wh, err := h.Hooks.Redeliver(r.Context(), h.actor(r), PathParam(r, "webhookID"), id)
	flash := "Delivery " + strconv.FormatInt(id, 10) + " queued again."
	if wh.Status != "Active" {
		// Only an Active webhook's deliveries are sent (docs/design.md §15).
		flash = "Delivery " + strconv.FormatInt(id, 10) + " queued again; it is sent when the webhook is Active again (it is " + wh.Status + ")."
	}
	h.Saved(w, r, Saved{Err: err, Flash: flash, Page: webhookPath(wh.WebhookID), Status: http.StatusAccepted, Body: d})
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
	page := webhookPath(id)
	t, err := h.Hooks.SendTest(r.Context(), h.actor(r), id)
	switch {
	case err == nil:
		h.Saved(w, r, Saved{Flash: testEventFlash(t), Page: page + "?watch=" + strconv.FormatInt(t.Delivery.DeliveryID, 10), Status: http.StatusAccepted, Body: t.Delivery})
	case inForm(r, err):
		h.Flash.Refuse(r.Context(), "No test event sent. "+AsError(err).Message)
		Redirect(w, r, page)
	default:
		WriteError(w, r, err)
	}
}

// testEventFlash says a test event was queued and, since a webhook's
// deliveries go out in order, what it waits behind and for how long when
// one of those failed.
func testEventFlash(t directory.TestEvent) string {
	n := strconv.FormatInt(t.Delivery.DeliveryID, 10)
	if t.Ahead == 0 {
		return "Test event queued (delivery " + n + "). Its status and the receiver's response show in the delivery log below as soon as it has been sent."
	}
	flash := "Test event queued (delivery " + n + ") behind " + countOf(t.Ahead, "earlier delivery", "earlier deliveries") + " to this receiver; it is sent after them."
	if !t.RetryAt.IsZero() {
		flash += " One of them failed and is retried at " + views.FormatTime(t.RetryAt) + ", so the test waits until then at least; Redeliver that one in the log below to try it now."
	}
	return flash
}
