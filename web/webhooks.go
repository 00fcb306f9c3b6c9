package web

import (
	"context"
	"time"

	"github.com/trustframe/trustframe/webhooks"
)

// webhookSecretAAD binds a sealed webhook secret to its webhook.
func webhookSecretAAD(id string) []byte {
	return []byte("trustframe webhook secret\x00" + id)
}

// DeliverWebhooks sends the webhook outbox until ctx ends (serve runs it;
// docs/design.md §15). Several processes on one database may each run it:
// every delivery is leased to one of them at a time.
func (s *Server) DeliverWebhooks(ctx context.Context) {
	timeout := s.cfg.WebhookTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	d := &webhooks.Deliverer{
		Store:   s.db,
		Client:  webhooks.Client(s.cfg.AllowPrivateWebhookURLs, timeout),
		Timeout: timeout,
		Open: func(id string, sealed []byte) ([]byte, error) {
			return s.kek.Open(sealed, webhookSecretAAD(id))
		},
		RetryFor:   s.cfg.WebhookRetryFor,
		PauseAfter: s.cfg.WebhookRetryFor,
		Backoff:    s.cfg.WebhookBackoff,
		Log:        s.log,
	}
	d.Run(ctx)
}
