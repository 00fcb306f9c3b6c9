package directory

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Webhook is a subscription of an HTTPS receiver to the changes of some
// subject types (docs/design.md §15). The secret is kept sealed under the
// KEK and never leaves the store in the clear.
type Webhook struct {
	WebhookID    string    `json:"WebhookId"`
	URL          string    `json:"Url"`
	Description  string    `json:"Description"`
	SubjectTypes []string  `json:"SubjectTypes"`
	Status       string    `json:"Status"` // Active, Inactive, or Paused (by the deliverer)
	PausedReason string    `json:"PausedReason,omitempty"`
	CreatedOn    time.Time `json:"CreatedOn"`
	UpdatedOn    time.Time `json:"UpdatedOn"`
	SealedSecret []byte    `json:"-"`
}

// WebhookSubjectTypes are the subject types of the audit log a webhook can
// subscribe to: every SubjectType written for a change. Left out on
// purpose: AuditLog and OrganisationList, the records that an export was
// read (TestEverySubjectTypeIsOfferedToWebhooks keeps the list whole).
var WebhookSubjectTypes = []string{
	"Application", "AuthorisationDomain", "AuthorisationServer", "Authority", "AuthorityClaim", "Certification",
	"CertificationType", "Contact", "ContactType", "DataAdministrator", "Document", "DocumentType", "ExpiryNotice",
	"FederationKey", "Flag", "IdentityProvider", "KeyMaterial", "Organisation", "OrganisationAdministrator", "OrganisationCertificate", "Role",
	"RoleMetadataPolicy", "Session", "SigningKey", "SuperUser", "TrustMark", "TrustMarkType", "Webhook",
}

// Change is one entry of the change feed (docs/design.md §15): an audit
// record as automation sees it, with the cursor that points just after it.
type Change struct {
	Cursor         string    `json:"Cursor"`
	Time           time.Time `json:"Time"`
	Action         string    `json:"Action"`
	SubjectType    string    `json:"SubjectType"`
	SubjectID      string    `json:"SubjectId"`
	OrganisationID string    `json:"OrganisationId,omitempty"`
	Actor          string    `json:"Actor"`
}

// WebhookDelivery is one change sent (or to be sent) to one webhook.
type WebhookDelivery struct {
	DeliveryID     int64     `json:"DeliveryId"`
	WebhookID      string    `json:"WebhookId"`
	Change         Change    `json:"Change"`
	Status         string    `json:"Status"` // Pending, Delivered, Failed
	Attempts       int       `json:"Attempts"`
	LastStatusCode int       `json:"LastStatusCode,omitempty"`
	LastError      string    `json:"LastError,omitempty"`
	LastDurationMs int64     `json:"LastDurationMs"`
	LastAttemptOn  string    `json:"LastAttemptOn,omitempty"`
	NextAttemptOn  string    `json:"NextAttemptOn,omitempty"`
	CreatedOn      time.Time `json:"CreatedOn"`
}

// CodeWebhookNotActive refuses a test event to a webhook that is not
// Active: its deliveries are not sent (409).
const CodeWebhookNotActive Code = "webhook_not_active"

// WebhookNotActive is the refusal of a test event to a webhook whose
// status is status, said on its Status.
func WebhookNotActive(status string) *Error {
	msg := "The webhook is " + status + ": only an Active webhook's deliveries are sent. Set it Active first, then send the test event."
	return &Error{Code: CodeWebhookNotActive, Message: msg, Fields: Fields{"Status": msg}}
}

// WebhookInput is a webhook as a client writes it: the writable fields,
// on creation the Secret it chose ("" for one made here), and on an update
// the WebhookId it sent back (nil when it sent none).
type WebhookInput struct {
	URL          string
	Description  string
	SubjectTypes []string
	Status       string
	Secret       string
	SentID       *string
}

// read puts in as the use cases read it: the URL trimmed, the subject
// types split at commas and spaces (a form's one text box) and each kept
// once, Active when a new webhook gives no status.
func (in *WebhookInput) read(creating bool) {
	in.URL = strings.TrimSpace(in.URL)
	var types []string
	for _, t := range in.SubjectTypes {
		for _, p := range strings.FieldsFunc(t, func(r rune) bool { return r == ',' || r == ' ' }) {
			if !slices.Contains(types, p) {
				types = append(types, p)
			}
		}
	}
	in.SubjectTypes = types
	if in.Status == "" && creating {
		in.Status = "Active"
	}
}

// Over is cur with what in sends, as a refused form shows it again: the
// writable fields, and the Status when one is sent.
func (in WebhookInput) Over(cur Webhook) Webhook {
	cur.URL, cur.Description, cur.SubjectTypes = in.URL, in.Description, in.SubjectTypes
	if in.Status != "" {
		cur.Status = in.Status
	}
	return cur
}

// validate checks what in must be without the database; checkURL is the
// address guard. On an update an empty Status keeps the current one and
// Paused may be sent back (Webhook.Applied judges it against the stored
// webhook); a secret is chosen only at creation.
func (in *WebhookInput) validate(ctx context.Context, checkURL func(context.Context, string) string, creating bool) Fields {
	f := Fields{}
	if in.URL == "" {
		f.Add("Url", "A receiver URL (https) is required.")
	} else if msg := checkURL(ctx, in.URL); msg != "" {
		f.Add("Url", msg)
	}
	f.MaxLen("Description", in.Description, 500)
	if len(in.SubjectTypes) == 0 {
		f.Add("SubjectTypes", "Choose at least one subject type.")
	}
	for _, t := range in.SubjectTypes {
		if !slices.Contains(WebhookSubjectTypes, t) {
			f.Add("SubjectTypes", t+" is not a subject type (one of "+strings.Join(WebhookSubjectTypes, ", ")+").")
			break
		}
	}
	if in.Status != "" && in.Status != "Active" && in.Status != "Inactive" && !(in.Status == "Paused" && !creating) {
		f.Add("Status", "Status must be Active or Inactive.")
	}
	if in.Secret != "" && !creating {
		f.Add("Secret", "The secret is changed with rotate-secret, not by an update.")
	}
	return f
}

// Applied is the webhook cur becomes by the update w: w's writable fields,
// a Status left out keeping cur's (docs/design.md §4). Paused is the
// deliverer's to set when deliveries keep failing: sending it for a
// webhook that is not Paused is added to problems. The store calls it on
// the stored webhook inside the write's transaction.
func (w Webhook) Applied(cur Webhook, problems Fields) Webhook {
	if w.Status == "Paused" && cur.Status != "Paused" {
		problems.Add("Status", "Status must be Active or Inactive (Paused is set by the service when deliveries keep failing).")
	}
	if w.Status == "" {
		w.Status = cur.Status
	}
	return w
}

// WebhookStore is what the webhook use cases need of the database. A
// write gets the problems already found with the webhook's fields: an
// update adds Webhook.Applied's rule against the stored webhook, and when
// any field needs attention the write refuses them all at once.
type WebhookStore interface {
	ListWebhooks(ctx context.Context) ([]Webhook, error)
	GetWebhook(ctx context.Context, id string) (Webhook, error)
	CreateWebhook(ctx context.Context, a Actor, w Webhook, problems Fields) (Webhook, error)
	UpdateWebhook(ctx context.Context, a Actor, w Webhook, problems Fields, check Check[Webhook]) (Webhook, error)
	RotateWebhookSecret(ctx context.Context, a Actor, id string, sealed []byte) (Webhook, error)
	DeleteWebhook(ctx context.Context, a Actor, id string) (Webhook, error)
	ListWebhookDeliveries(ctx context.Context, webhookID string, page, size int) ([]WebhookDelivery, int, error)
	Redeliver(ctx context.Context, a Actor, webhookID string, deliveryID int64) (WebhookDelivery, error)
	QueueTestDelivery(ctx context.Context, a Actor, webhookID string) (WebhookDelivery, error)
	DeliveriesAhead(ctx context.Context, webhookID string, deliveryID int64) (int, time.Time, error)
}

// WebhookSecrets make, read and seal webhooks' signing secrets (the
// Standard Webhooks form of the webhooks package, sealed under the KEK).
type WebhookSecrets struct {
	New   func() string                             // a new secret
	Parse func(secret string) ([]byte, error)       // the key of a secret, or why it is not one
	Seal  func(webhookID string, key []byte) []byte // the key sealed for this webhook alone
}

// Webhooks are the use cases of webhooks (Super Users; docs/design.md §15).
type Webhooks struct {
	Store WebhookStore
	// CheckURL says why raw cannot receive deliveries, "" when it can: the
	// address guard (https, a public address; private receivers only when
	// the deployment allows them).
	CheckURL func(ctx context.Context, raw string) string
	Secrets  WebhookSecrets
}

// List is every webhook, oldest first.
func (s *Webhooks) List(ctx context.Context) ([]Webhook, error) {
	return s.Store.ListWebhooks(ctx)
}

// Get is one webhook.
func (s *Webhooks) Get(ctx context.Context, id string) (Webhook, error) {
	w, err := s.Store.GetWebhook(ctx, id)
	return w, Named(err, "Webhook")
}

// Create adds the webhook in and answers its secret, shown this once: the
// one in chose, or a new one. in is read in place (URL trimmed, subject
// types listed once), so that a refused form shows what was read.
// refused are problems the caller found while reading the input; they are
// reported with the rest and nothing is written.
func (s *Webhooks) Create(ctx context.Context, a Actor, in *WebhookInput, refused Fields) (Webhook, string, error) {
	in.read(true)
	problems := in.validate(ctx, s.CheckURL, true)
	var key []byte
	if in.Secret != "" {
		k, err := s.Secrets.Parse(in.Secret)
		if err != nil {
			problems.Add("Secret", "Secret: "+err.Error()+".")
		}
		key = k
	}
	problems.Merge(refused)
	w := Webhook{WebhookID: newID(), URL: in.URL, Description: in.Description, SubjectTypes: in.SubjectTypes, Status: in.Status}
	secret := in.Secret
	if len(problems) == 0 {
		if key == nil {
			secret = s.Secrets.New()
			key, _ = s.Secrets.Parse(secret)
		}
		w.SealedSecret = s.Secrets.Seal(w.WebhookID, key)
	}
	saved, err := s.Store.CreateWebhook(ctx, a, w, problems)
	if err != nil {
		return saved, "", Named(err, "Webhook")
	}
	return saved, secret, nil
}

// Update replaces the writable fields of the webhook id (Url,
// Description, SubjectTypes, Status) when check passes on the stored one;
// setting a Paused webhook Active resumes its deliveries. in and refused
// are as for Create; a WebhookId sent back must be id.
func (s *Webhooks) Update(ctx context.Context, a Actor, id string, in *WebhookInput, refused Fields, check Check[Webhook]) (Webhook, error) {
	in.read(false)
	problems := in.validate(ctx, s.CheckURL, false).Merge(refused)
	if in.SentID != nil && *in.SentID != id {
		// Read-only members sent back as read are ignored; another id is
		// not "as read".
		problems.Add("WebhookId", "WebhookId cannot change.")
	}
	w := Webhook{WebhookID: id, URL: in.URL, Description: in.Description, SubjectTypes: in.SubjectTypes, Status: in.Status}
	saved, err := s.Store.UpdateWebhook(ctx, a, w, problems, check)
	return saved, Named(err, "Webhook")
}

// RotateSecret replaces the secret of the webhook id and answers the new
// one, shown this once; the old one no longer signs.
func (s *Webhooks) RotateSecret(ctx context.Context, a Actor, id string) (Webhook, string, error) {
	secret := s.Secrets.New()
	key, _ := s.Secrets.Parse(secret)
	w, err := s.Store.RotateWebhookSecret(ctx, a, id, s.Secrets.Seal(id, key))
	if err != nil {
		return w, "", Named(err, "Webhook")
	}
	return w, secret, nil
}

// Delete removes the webhook id and its delivery log; it answers the
// webhook as it was.
func (s *Webhooks) Delete(ctx context.Context, a Actor, id string) (Webhook, error) {
	w, err := s.Store.DeleteWebhook(ctx, a, id)
	return w, Named(err, "Webhook")
}

// Deliveries is one page of the delivery log of the webhook id, newest
// first, and the total.
func (s *Webhooks) Deliveries(ctx context.Context, id string, page, size int) ([]WebhookDelivery, int, error) {
	if _, err := s.Get(ctx, id); err != nil {
		return nil, 0, err
	}
	return s.Store.ListWebhookDeliveries(ctx, id, page, size)
}

// Redeliver queues the delivery deliveryID of the webhook id again, now,
// and answers it with the webhook: only an Active webhook's deliveries
// are sent (docs/design.md §15).
func (s *Webhooks) Redeliver(ctx context.Context, a Actor, id string, deliveryID int64) (WebhookDelivery, Webhook, error) {
	w, err := s.Get(ctx, id)
	if err != nil {
		return WebhookDelivery{}, w, err
	}
	if deliveryID <= 0 {
		return WebhookDelivery{}, w, NotFound("Delivery")
	}
	d, err := s.Store.Redeliver(ctx, a, id, deliveryID)
	return d, w, Named(err, "Delivery")
}

// TestEvent is a test event queued: its delivery, and what it waits for —
// Ahead earlier deliveries to the same receiver (they go out in order),
// one of which failed and is retried at RetryAt (zero when none did).
type TestEvent struct {
	Delivery WebhookDelivery
	Ahead    int
	RetryAt  time.Time
}

// SendTest queues one test event to the webhook id alone, sent, signed
// and retried like any delivery. A webhook that is not Active is refused
// (WebhookNotActive): its deliveries are not sent.
func (s *Webhooks) SendTest(ctx context.Context, a Actor, id string) (TestEvent, error) {
	d, err := s.Store.QueueTestDelivery(ctx, a, id)
	if err != nil {
		return TestEvent{}, Named(err, "Webhook")
	}
	t := TestEvent{Delivery: d}
	// What it waits for only words the answer: a failure to count is not
	// the test event's.
	if n, at, err := s.Store.DeliveriesAhead(ctx, id, d.DeliveryID); err == nil {
		t.Ahead, t.RetryAt = n, at
	}
	return t, nil
}

// newID is a new webhook's id, in the store's form (a random UUID): the
// id is known before the write because the sealed secret is bound to it.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
