package views

import (
	"strconv"
	"time"

	"github.com/trustframe/trustframe/formats"
	"github.com/trustframe/trustframe/store"
)

// WebhookLogSize is how many deliveries a page of a webhook's log shows.
const WebhookLogSize = 20

// NewWebhookForm is the form of webhook wh with errs beside its fields.
func NewWebhookForm(wh store.Webhook, errs map[string]string) WebhookForm {
	return WebhookForm{WebhookID: wh.WebhookID, URL: wh.URL, Description: wh.Description, SubjectTypes: wh.SubjectTypes, Status: wh.Status,
		PausedReason: wh.PausedReason, AllTypes: store.WebhookSubjectTypes, Errors: errs}
}

// NewWebhookPage is the page of webhook wh: its form with errs beside its
// fields, and page of its delivery log (ds, of total). watch is the
// delivery a test event just queued (0 for none): while it is untried the
// log reloads itself, for a minute after it was queued at most, so that
// one waiting behind a failing delivery's retry is not watched for hours
// and a tab left open does not poll (nor keep its session) for ever.
func NewWebhookPage(wh store.Webhook, errs map[string]string, ds []store.WebhookDelivery, total, page int, watch int64, now time.Time) WebhookPage {
	p := WebhookPage{Form: NewWebhookForm(wh, errs), Deliveries: ds, Total: total, Page: page}
	at := webhookURL(wh.WebhookID)
	if watch != 0 && page == 0 && wh.Status == "Active" {
		for _, d := range ds {
			if d.DeliveryID == watch && d.Status == "Pending" && d.Attempts == 0 && now.Sub(d.CreatedOn) < time.Minute {
				p.PollURL = at + "?watch=" + strconv.FormatInt(watch, 10)
			}
		}
	}
	if page > 0 {
		prev := page - 1
		if pages := (total + WebhookLogSize - 1) / WebhookLogSize; page >= pages {
			prev = max(pages-1, 0) // past the end (an old link): the last page
		}
		p.PrevURL = at + "?page=" + strconv.Itoa(prev)
	}
	if (page+1)*WebhookLogSize < total {
		p.NextURL = at + "?page=" + strconv.Itoa(page+1)
	}
	return p
}

// TestEventFlash says a test event was queued as delivery id and, since a
// webhook's deliveries go out in order, what it waits behind (ahead) and
// until when (retryAt, when one of those failed; zero otherwise).
func TestEventFlash(id int64, ahead int, retryAt time.Time) string {
	n := strconv.FormatInt(id, 10)
	if ahead == 0 {
		return "Test event queued (delivery " + n + "). Its status and the receiver's response show in the delivery log below as soon as it has been sent."
	}
	flash := "Test event queued (delivery " + n + ") behind " + formats.Count(ahead, "earlier delivery", "earlier deliveries") + " to this receiver; it is sent after them."
	if !retryAt.IsZero() {
		flash += " One of them failed and is retried at " + FormatTime(retryAt) + ", so the test waits until then at least; Redeliver that one in the log below to try it now."
	}
	return flash
}

// RedeliveredFlash says delivery id was queued again, and when the
// webhook (of status) is not Active that it waits until it is: only an
// Active webhook's deliveries are sent (docs/design.md §15).
func RedeliveredFlash(id int64, status string) string {
	n := strconv.FormatInt(id, 10)
	if status != "Active" {
		return "Delivery " + n + " queued again; it is sent when the webhook is Active again (it is " + status + ")."
	}
	return "Delivery " + n + " queued again."
}
