package directory_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/webhooks"
)

// mustWebhooks are the webhook use cases on a new database: every URL
// but one on bad.example passes the address guard, and a secret is
// "sealed" as the webhook's id and the key, so a test can see both.
func mustWebhooks(t *testing.T) *directory.Webhooks {
	t.Helper()
	return &directory.Webhooks{Store: mustOpen(t),
		CheckURL: func(_ context.Context, raw string) string {
			if strings.Contains(raw, "bad.example") {
				return "The receiver URL must point to a public address."
			}
			return ""
		},
		Secrets: directory.WebhookSecrets{New: webhooks.NewSecret, Parse: webhooks.ParseSecret,
			Seal: func(id string, key []byte) []byte { return append([]byte(id+":"), key...) }}}
}

// A new webhook with a URL the guard refuses, an unknown subject type and
// a malformed secret is refused naming all three at once, and nothing is
// written; the form's one text box of subject types is read as a list.
func TestWebhookCreateRefusesEveryFieldAtOnce(t *testing.T) {
	ctx := context.Background()
	s := mustWebhooks(t)
	a := directory.Actor{Actor: "root@example.com"}
	in := directory.WebhookInput{URL: " https://bad.example/hook ", SubjectTypes: []string{"Organisation, Nonsense Contact"}, Secret: "nope"}
	_, _, err := s.Create(ctx, a, &in, nil)
	var e *directory.Error
	if !errors.As(err, &e) || e.Fields["Url"] == "" || !strings.Contains(e.Fields["SubjectTypes"], "Nonsense") || !strings.HasPrefix(e.Fields["Secret"], "Secret: ") {
		t.Fatalf("want Url, SubjectTypes and Secret refused, got %v", err)
	}
	if in.URL != "https://bad.example/hook" || strings.Join(in.SubjectTypes, "|") != "Organisation|Nonsense|Contact" || in.Status != "Active" {
		t.Fatalf("the input as read: %+v", in)
	}
	if ws, _ := s.List(ctx); len(ws) != 0 {
		t.Fatalf("a refused webhook was written: %v", ws)
	}
}

// A webhook made without a secret gets a new one, answered once and
// sealed for that webhook alone.
func TestWebhookCreateMakesASecret(t *testing.T) {
	ctx := context.Background()
	s := mustWebhooks(t)
	in := directory.WebhookInput{URL: "https://hooks.example.com/a", SubjectTypes: []string{"Organisation"}}
	w, secret, err := s.Create(ctx, directory.Actor{Actor: "root@example.com"}, &in, nil)
	if err != nil {
		t.Fatal(err)
	}
	key, err := webhooks.ParseSecret(secret)
	if err != nil {
		t.Fatalf("the secret answered is not one: %q %v", secret, err)
	}
	if string(w.SealedSecret) != w.WebhookID+":"+string(key) || w.Status != "Active" {
		t.Fatalf("stored %+v", w)
	}
}

// An update may not send another WebhookId, a secret, or Paused for a
// webhook the deliverer has not paused: all are refused at once and the
// webhook does not change. A Status left out keeps the stored one.
func TestWebhookUpdateRefusesEveryFieldAtOnce(t *testing.T) {
	ctx := context.Background()
	s := mustWebhooks(t)
	a := directory.Actor{Actor: "root@example.com"}
	w, _, err := s.Create(ctx, a, &directory.WebhookInput{URL: "https://hooks.example.com/a", SubjectTypes: []string{"Organisation"}, Status: "Inactive"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	other := "another"
	in := directory.WebhookInput{URL: "https://hooks.example.com/b", SubjectTypes: []string{"Contact"}, Status: "Paused", Secret: "whsec_x", SentID: &other}
	_, err = s.Update(ctx, a, w.WebhookID, &in, nil, nil)
	var e *directory.Error
	if !errors.As(err, &e) || e.Fields["WebhookId"] == "" || e.Fields["Secret"] == "" || !strings.Contains(e.Fields["Status"], "Paused is set by the service") {
		t.Fatalf("want WebhookId, Secret and Status refused, got %v", err)
	}
	if got, _ := s.Get(ctx, w.WebhookID); got.URL != w.URL {
		t.Fatalf("a refused update changed the webhook: %+v", got)
	}
	got, err := s.Update(ctx, a, w.WebhookID, &directory.WebhookInput{URL: "https://hooks.example.com/b", SubjectTypes: []string{"Contact"}, SentID: &w.WebhookID}, nil, nil)
	if err != nil || got.URL != "https://hooks.example.com/b" || got.Status != "Inactive" {
		t.Fatalf("update: %+v %v", got, err)
	}
	if _, err := s.Update(ctx, a, "no-such-webhook", &directory.WebhookInput{URL: "https://hooks.example.com/b", SubjectTypes: []string{"Contact"}}, nil, nil); !errors.As(err, &e) || e.Code != directory.CodeNotFound {
		t.Fatalf("a webhook that does not exist: %v", err)
	}
}

// A test event to a webhook that is not Active is refused on its Status;
// one to an Active webhook is queued.
func TestWebhookSendTest(t *testing.T) {
	ctx := context.Background()
	s := mustWebhooks(t)
	a := directory.Actor{Actor: "root@example.com"}
	w, _, err := s.Create(ctx, a, &directory.WebhookInput{URL: "https://hooks.example.com/a", SubjectTypes: []string{"Organisation"}, Status: "Inactive"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var e *directory.Error
	if _, err := s.SendTest(ctx, a, w.WebhookID); !errors.As(err, &e) || e.Code != directory.CodeWebhookNotActive || e.Fields["Status"] == "" {
		t.Fatalf("an Inactive webhook: %v", err)
	}
	if _, err := s.Update(ctx, a, w.WebhookID, &directory.WebhookInput{URL: w.URL, SubjectTypes: w.SubjectTypes, Status: "Active"}, nil, nil); err != nil {
		t.Fatal(err)
	}
	ev, err := s.SendTest(ctx, a, w.WebhookID)
	if err != nil || ev.Delivery.DeliveryID == 0 || ev.Ahead != 0 {
		t.Fatalf("test event: %+v %v", ev, err)
	}
	if _, _, err := s.Redeliver(ctx, a, w.WebhookID, 0); !errors.As(err, &e) || e.Message != "Delivery not found" {
		t.Fatalf("delivery 0: %v", err)
	}
}
