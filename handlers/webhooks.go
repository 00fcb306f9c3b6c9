package handlers

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/views"
	"github.com/trustframe/trustframe/webhooks"
)

type webhookStore interface {
	ListWebhooks(ctx context.Context) ([]store.Webhook, error)
	GetWebhook(ctx context.Context, id string) (store.Webhook, error)
	CreateWebhook(ctx context.Context, a store.Audit, w store.Webhook) (store.Webhook, error)
	UpdateWebhook(ctx context.Context, a store.Audit, w store.Webhook, check func(store.Webhook) error) (store.Webhook, error)
	RotateWebhookSecret(ctx context.Context, a store.Audit, id string, sealed []byte) (store.Webhook, error)
	DeleteWebhook(ctx context.Context, a store.Audit, id string) error
	ListWebhookDeliveries(ctx context.Context, webhookID string, page, size int) ([]store.WebhookDelivery, int, error)
	Redeliver(ctx context.Context, a store.Audit, webhookID string, deliveryID int64) (store.WebhookDelivery, error)
	QueueTestDelivery(ctx context.Context, a store.Audit, webhookID string) (store.WebhookDelivery, error)
	DeliveriesAhead(ctx context.Context, webhookID string, deliveryID int64) (int, time.Time, error)
}

// Webhooks serves Reference Data > Webhooks and /api/references/webhooks
// (Super Users; docs/design.md §15).
type Webhooks struct {
	*Base
	Store webhookStore
	// SealSecret seals a webhook's secret key under the KEK.
	SealSecret func(webhookID string, key []byte) []byte
	// AllowPrivate accepts http and private receivers
	// (--allow-private-webhook-urls: tests and development).
	AllowPrivate bool
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

// validate checks the writable fields; secret is the key of a Secret the
// client sent (nil when none).
func (h *Webhooks) validate(ctx context.Context, in *webhookIn, creating bool) (map[string]string, []byte) {
	f := map[string]string{}
	in.URL = strings.TrimSpace(in.URL)
	if in.URL == "" {
		f["Url"] = "A receiver URL (https) is required."
	}
	if in.URL != "" {
		if msg := webhooks.CheckURL(ctx, in.URL, h.AllowPrivate, nil); msg != "" {
			f["Url"] = msg
		}
	}
	checkLen(f, "Description", in.Description, 500)
	var types []string
	for _, t := range in.SubjectTypes {
		for _, p := range strings.FieldsFunc(t, func(r rune) bool { return r == ',' || r == ' ' }) {
			if !slices.Contains(types, p) {
				types = append(types, p)
			}
		}
	}
	in.SubjectTypes = types
	if len(types) == 0 {
		f["SubjectTypes"] = "Choose at least one subject type."
	}
	for _, t := range types {
		if !slices.Contains(store.WebhookSubjectTypes, t) {
			f["SubjectTypes"] = t + " is not a subject type (one of " + strings.Join(store.WebhookSubjectTypes, ", ") + ")."
			break
		}
	}
	if in.Status == "" && creating {
		in.Status = "Active"
	}
	// On an update an empty Status keeps the current one (docs/design.md §4).
	if in.Status != "" && in.Status != "Active" && in.Status != "Inactive" && !(in.Status == "Paused" && !creating) {
		f["Status"] = "Status must be Active or Inactive."
	}
	var key []byte
	if in.Secret != "" {
		if !creating {
			f["Secret"] = "The secret is changed with rotate-secret, not by an update."
		} else if k, err := webhooks.ParseSecret(in.Secret); err != nil {
			f["Secret"] = "Secret: " + err.Error() + "."
		} else {
			key = k
		}
	}
	return f, key
}

// List answers every webhook; the page lists them.
func (h *Webhooks) List(w http.ResponseWriter, r *http.Request) {
	ws, err := h.Store.ListWebhooks(r.Context())
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
	fields, key := h.validate(r.Context(), &in, true)
	fields = withRefused(fields, refused)
	if len(fields) > 0 {
		h.Saved(w, r, Saved{Err: Validation(fields), Again: func(*Error) bool {
			h.newPage(w, r, http.StatusUnprocessableEntity, views.WebhookForm{URL: in.URL, Description: in.Description, SubjectTypes: in.SubjectTypes, Status: in.Status, Errors: fields})
			return true
		}})
		return
	}
	secret := in.Secret
	if key == nil {
		secret = webhooks.NewSecret()
		key, _ = webhooks.ParseSecret(secret)
	}
	id := store.NewID()
	wh, err := h.Store.CreateWebhook(r.Context(), h.actor(r), store.Webhook{WebhookID: id, URL: in.URL, Description: in.Description,
		SubjectTypes: in.SubjectTypes, Status: in.Status, SealedSecret: h.SealSecret(id, key)})
	if err != nil {
		WriteError(w, r, err)
		return
	}
	w.Header().Set("Location", "/api"+webhookPath(wh.WebhookID))
	h.withSecret(w, r, http.StatusCreated, wh, secret, "Webhook created. Copy its secret now: it is not shown again.")
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
	wh, err := h.Store.GetWebhook(r.Context(), PathParam(r, "webhookID"))
	if err != nil {
		WriteError(w, r, directory.Named(err, "Webhook"))
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
	ds, total, err := h.Store.ListWebhookDeliveries(r.Context(), wh.WebhookID, page, 20)
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
	fields, _ := h.validate(r.Context(), &in, false)
	fields = withRefused(fields, refused)
	// Read-only members sent back as read are ignored; another id is not
	// "as read" (as OrganisationId cannot change).
	if id, isString := in.WebhookID.(string); in.WebhookID != nil && (!isString || id != cur.WebhookID) {
		fields["WebhookId"] = "WebhookId cannot change."
	}
	if in.Status == "Paused" && cur.Status != "Paused" {
		fields["Status"] = "Status must be Active or Inactive (Paused is set by the service when deliveries keep failing)."
	}
	if len(fields) > 0 {
		h.Saved(w, r, Saved{Err: Validation(fields), Again: func(*Error) bool {
			cur.URL, cur.Description, cur.SubjectTypes = in.URL, in.Description, in.SubjectTypes
			if in.Status != "" {
				cur.Status = in.Status
			}
			h.detail(w, r, http.StatusUnprocessableEntity, cur, "", fields, "")
			return true
		}})
		return
	}
	wh, err := h.Store.UpdateWebhook(r.Context(), h.actor(r), store.Webhook{WebhookID: cur.WebhookID, URL: in.URL, Description: in.Description,
		SubjectTypes: in.SubjectTypes, Status: in.Status}, func(cur store.Webhook) error { return CheckIfMatch(r, cur) })
	h.Saved(w, r, Saved{Err: directory.Named(err, "Webhook"),
		Flash: "Webhook " + wh.URL + " saved (" + wh.Status + ").", Page: page,
		Status: http.StatusOK, Body: wh, ETag: wh})
}

// RotateSecret replaces a webhook's secret and answers the new one, once.
func (h *Webhooks) RotateSecret(w http.ResponseWriter, r *http.Request) {
	cur, ok := h.get(w, r)
	if !ok {
		return
	}
	secret := webhooks.NewSecret()
	key, _ := webhooks.ParseSecret(secret)
	wh, err := h.Store.RotateWebhookSecret(r.Context(), h.actor(r), cur.WebhookID, h.SealSecret(cur.WebhookID, key))
	if err != nil {
		WriteError(w, r, directory.Named(err, "Webhook"))
		return
	}
	h.withSecret(w, r, http.StatusOK, wh, secret, "New secret made. Copy it now: it is not shown again; the old one no longer signs.")
}

// Delete removes a webhook and its delivery log.
func (h *Webhooks) Delete(w http.ResponseWriter, r *http.Request) {
	cur, ok := h.get(w, r)
	if !ok {
		return
	}
	err := h.Store.DeleteWebhook(r.Context(), h.actor(r), cur.WebhookID)
	h.Saved(w, r, Saved{Err: directory.Named(err, "Webhook"),
		Flash: "Webhook " + cur.URL + " deleted.", Page: webhooksPath, Status: http.StatusNoContent})
}

// Deliveries answers a webhook's delivery log, newest first (paged).
func (h *Webhooks) Deliveries(w http.ResponseWriter, r *http.Request) {
	cur, ok := h.get(w, r)
	if !ok {
		return
	}
	page, size, err := PageParams(r.URL.Query())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	ds, total, err := h.Store.ListWebhookDeliveries(r.Context(), cur.WebhookID, page, size)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, NewPaged(ds, page, size, total))
}

// Redeliver queues one delivery again, now.
func (h *Webhooks) Redeliver(w http.ResponseWriter, r *http.Request) {
	cur, ok := h.get(w, r)
	if !ok {
		return
	}
	id, err := strconv.ParseInt(PathParam(r, "deliveryID"), 10, 64)
	if err != nil || id <= 0 {
		WriteError(w, r, CodeNotFound.New("Delivery not found"))
		return
	}
	d, err := h.Store.Redeliver(r.Context(), h.actor(r), cur.WebhookID, id)
	flash := "Delivery " + strconv.FormatInt(id, 10) + " queued again."
	if cur.Status != "Active" {
		// Only an Active webhook's deliveries are sent (docs/design.md §15).
		flash = "Delivery " + strconv.FormatInt(id, 10) + " queued again; it is sent when the webhook is Active again (it is " + cur.Status + ")."
	}
	h.Saved(w, r, Saved{Err: directory.Named(err, "Delivery"),
		Flash: flash, Page: webhookPath(cur.WebhookID),
		Status: http.StatusAccepted, Body: d})
}

// SendTest queues one test event to this webhook alone (audit action
// "test", body type "Webhook.test", naming the webhook and who sent it),
// sent, signed and retried like any delivery: 202 with the delivery, or
// the page with a flash; the log shows the attempt once the deliverer has
// made it. A webhook that is not Active is refused (409
// webhook_not_active): its deliveries are not sent (docs/decisions.md,
// "Test events").
func (h *Webhooks) SendTest(w http.ResponseWriter, r *http.Request) {
	cur, ok := h.get(w, r)
	if !ok {
		return
	}
	page := webhookPath(cur.WebhookID)
	d, err := h.Store.QueueTestDelivery(r.Context(), h.actor(r), cur.WebhookID)
	var na *store.WebhookNotActiveError
	if errors.As(err, &na) {
		msg := "The webhook is " + na.Status + ": only an Active webhook's deliveries are sent. Set it Active first, then send the test event."
		err = CodeWebhookNotActive.New(msg).WithFields(FieldError{Code: CodeWebhookNotActive.Name, Field: "Status", Message: msg})
	}
	flash := "Test event queued (delivery " + strconv.FormatInt(d.DeliveryID, 10) + "). Its status and the receiver's response show in the delivery log below as soon as it has been sent."
	if err == nil {
		// A webhook's deliveries go out in order: say when the test waits
		// behind others, and for how long when one of them failed.
		if n, retryAt, aerr := h.Store.DeliveriesAhead(r.Context(), cur.WebhookID, d.DeliveryID); aerr == nil && n > 0 {
			flash = "Test event queued (delivery " + strconv.FormatInt(d.DeliveryID, 10) + ") behind " + countOf(n, "earlier delivery", "earlier deliveries") +
				" to this receiver; it is sent after them."
			if !retryAt.IsZero() {
				flash += " One of them failed and is retried at " + views.FormatTime(retryAt) + ", so the test waits until then at least; Redeliver that one in the log below to try it now."
			}
		}
	}
	h.Saved(w, r, Saved{Err: directory.Named(err, "Webhook"),
		Again: formAgain(h.Refused(w, r, "No test event sent. ", page)),
		Flash: flash, Page: page + "?watch=" + strconv.FormatInt(d.DeliveryID, 10), Status: http.StatusAccepted, Body: d})
}
