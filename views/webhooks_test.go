package views

import (
	"testing"
	"time"

	"github.com/trustframe/trustframe/store"
)

// A webhook's page reloads its log only while the test event it watches
// is untried, on the first page of an Active webhook, for a minute; its
// Previous link from past the end goes to the last page.
func TestNewWebhookPage(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	active := store.Webhook{WebhookID: "w1", Status: "Active"}
	pending := store.WebhookDelivery{DeliveryID: 7, Status: "Pending", CreatedOn: now.Add(-10 * time.Second)}
	for _, tc := range []struct {
		name  string
		wh    store.Webhook
		d     store.WebhookDelivery
		page  int
		watch int64
		poll  bool
	}{
		{"an untried test event", active, pending, 0, 7, true},
		{"nothing watched", active, pending, 0, 0, false},
		{"another delivery", active, pending, 0, 8, false},
		{"a later page", active, pending, 1, 7, false},
		{"a Paused webhook", store.Webhook{WebhookID: "w1", Status: "Paused"}, pending, 0, 7, false},
		{"tried once", active, store.WebhookDelivery{DeliveryID: 7, Status: "Pending", Attempts: 1, CreatedOn: pending.CreatedOn}, 0, 7, false},
		{"queued over a minute ago", active, store.WebhookDelivery{DeliveryID: 7, Status: "Pending", CreatedOn: now.Add(-time.Minute)}, 0, 7, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewWebhookPage(tc.wh, nil, []store.WebhookDelivery{tc.d}, 1, tc.page, tc.watch, now)
			if got := p.PollURL == "/references/webhooks/w1?watch=7"; got != tc.poll {
				t.Errorf("PollURL %q, want polling %v", p.PollURL, tc.poll)
			}
		})
	}
	p := NewWebhookPage(active, nil, nil, 45, 5, 0, now)
	if p.PrevURL != "/references/webhooks/w1?page=2" || p.NextURL != "" {
		t.Errorf("past the end of 3 pages: prev %q next %q", p.PrevURL, p.NextURL)
	}
	p = NewWebhookPage(active, nil, nil, 45, 1, 0, now)
	if p.PrevURL != "/references/webhooks/w1?page=0" || p.NextURL != "/references/webhooks/w1?page=2" {
		t.Errorf("page 2 of 3: prev %q next %q", p.PrevURL, p.NextURL)
	}
}
