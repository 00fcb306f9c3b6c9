package handlers

import (
	"net/http"
	"net/url"

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

// List answers every webhook; the page lists them.
func (h *Webhooks) List(w http.ResponseWriter, r *http.Request) {
	ws, err := h.Hooks.List(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	Respond(w, r, http.StatusOK, ws, views.Webhooks(h.referenceShell(r, "Webhooks", "Webhooks", webhooksPath), views.WebhooksPage{Webhooks: ws}))
}

// New is the form that adds a webhook.
func (h *Webhooks) New(w http.ResponseWriter, r *http.Request) {
	h.newPage(w, r, http.StatusOK, store.Webhook{Status: "Active"}, nil)
}

func (h *Webhooks) newPage(w http.ResponseWriter, r *http.Request, status int, typed store.Webhook, errs map[string]string) {
	shell := h.referenceShell(r, "Add webhook", "Webhooks", webhooksPath, views.Crumb{Label: "Add webhook"})
	Render(w, r, status, views.NewWebhook(shell, views.NewWebhookForm(typed, errs)))
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
		h.withSecret(w, r, http.StatusCreated, wh, secret, "Webhook "+wh.URL+" "+views.SaveWord(true)+". Copy its secret now: it is not shown again.")
	case inForm(r, err):
		h.newPage(w, r, AsError(err).Status, sent.Over(store.Webhook{}), orMessage(err, "Url"))
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
