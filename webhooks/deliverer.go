package webhooks

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/trustframe/trustframe/issuer"
	"github.com/trustframe/trustframe/store"
)

// Store is what the deliverer needs of the store.
type Store interface {
	ClaimDeliveries(ctx context.Context, owner string, now time.Time, lease time.Duration, n int) ([]store.DueDelivery, error)
	FinishDelivery(ctx context.Context, owner string, dd store.DueDelivery, o store.DeliveryOutcome) error
	NextDeliveryDue(ctx context.Context) (time.Time, bool, error)
	NextCommit() <-chan struct{}
}

// Deliverer sends due deliveries until its context ends.
type Deliverer struct {
	Store Store
	// Open unseals a webhook's secret (the KEK).
	Open func(webhookID string, sealed []byte) ([]byte, error)
	// Client sends the requests; default Client(false, Timeout).
	Client *http.Client
	// Timeout bounds one attempt, connection to last byte read (default 10 s).
	Timeout time.Duration
	// MaxBody is how much of a receiver's answer is read (default 64 KiB);
	// the rest is not read at all.
	MaxBody int64
	// RetryFor is how long a delivery is retried after its first attempt
	// (default 24 h); PauseAfter pauses a webhook whose every attempt has
	// failed for this long (default 24 h).
	RetryFor, PauseAfter time.Duration
	// Backoff is the wait before retry n (default the package's Backoff).
	Backoff func(n int) time.Duration
	// Workers send at the same time (default 4); Poll is the longest
	// wait between two looks at the outbox (default 1 s), for changes
	// committed by other instances.
	Workers int
	Poll    time.Duration
	Now     func() time.Time
	Log     *slog.Logger
	owner   string
}

func (d *Deliverer) defaults() {
	if d.Timeout == 0 {
		d.Timeout = 10 * time.Second
	}
	if d.Client == nil {
		d.Client = Client(false, d.Timeout)
	}
	if d.MaxBody == 0 {
		d.MaxBody = 64 << 10
	}
	if d.RetryFor == 0 {
		d.RetryFor = 24 * time.Hour
	}
	if d.PauseAfter == 0 {
		d.PauseAfter = 24 * time.Hour
	}
	if d.Backoff == nil {
		d.Backoff = Backoff
	}
	if d.Workers == 0 {
		d.Workers = 4
	}
	if d.Poll == 0 {
		d.Poll = time.Second
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.Default()
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	d.owner = hex.EncodeToString(b)
}

// lease is how long a claim holds: an attempt, and room to record it. A
// deliverer killed mid-attempt leaves its deliveries to whoever looks
// after the lease has run out.
func (d *Deliverer) lease() time.Duration { return d.Timeout + 5*time.Second }

// Run delivers until ctx ends. It wakes on every commit of this process,
// when a worker is free again, when the next retry falls due, and at
// least every Poll; while every worker is busy it waits only for one to
// be freed. It claims only as many deliveries as it has free
// workers, so a receiver that hangs holds one worker for one timeout and
// never delays the others.
func (d *Deliverer) Run(ctx context.Context) {
	d.defaults()
	busy := make(chan struct{}, d.Workers)
	freed := make(chan struct{}, 1)
	var wg sync.WaitGroup
	defer wg.Wait()
	for ctx.Err() == nil {
		commit := d.Store.NextCommit()
		free := d.Workers - len(busy)
		if free == 0 {
			// Every worker is sending: nothing can be claimed until one
			// is done (each attempt is bounded by Timeout), so wait for
			// that, not for commits or the next due row (that was a
			// 10 ms busy poll while rows were due).
			select {
			case <-ctx.Done():
			case <-freed:
			}
			continue
		}
		due, err := d.Store.ClaimDeliveries(ctx, d.owner, d.Now(), d.lease(), free)
		if err != nil && ctx.Err() == nil {
			d.Log.Warn("webhooks: claim deliveries", "err", err)
		}
		for _, dd := range due {
			busy <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() {
					<-busy
					wg.Done()
					select {
					case freed <- struct{}{}:
					default:
					}
				}()
				d.deliver(ctx, dd)
			}()
		}
		n := len(due)
		if n > 0 && n < free {
			continue // there may be more due
		}
		wait := d.Poll
		if n == 0 {
			if at, ok, err := d.Store.NextDeliveryDue(ctx); err == nil && ok {
				if w := at.Sub(d.Now()); w < wait {
					wait = max(w, 10*time.Millisecond)
				}
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-commit:
		case <-freed:
		case <-t.C:
		}
		t.Stop()
	}
}

// deliver makes one attempt and records it.
func (d *Deliverer) deliver(ctx context.Context, dd store.DueDelivery) {
	start := d.Now()
	first := start
	if dd.FirstAttemptAt > 0 {
		first = time.UnixMilli(dd.FirstAttemptAt)
	}
	code, err := d.send(ctx, dd)
	if ctx.Err() != nil {
		return // stopping: the lease runs out and the delivery is sent later
	}
	o := store.DeliveryOutcome{At: d.Now(), StatusCode: code, OK: err == nil, FirstAttemptAt: first, PauseAfter: d.PauseAfter}
	o.Duration = o.At.Sub(start)
	if err != nil {
		o.Error = err.Error()
		next := o.At.Add(d.Backoff(dd.Attempts + 1))
		if next.Sub(first) <= d.RetryFor {
			o.NextAttempt = next
		}
	}
	if err := d.Store.FinishDelivery(context.WithoutCancel(ctx), d.owner, dd, o); err != nil {
		d.Log.Warn("webhooks: record delivery", "delivery", dd.DeliveryID, "err", err)
	}
}

// send posts the signed payload; nil error means a 2xx.
func (d *Deliverer) send(ctx context.Context, dd store.DueDelivery) (int, error) {
	key, err := d.Open(dd.WebhookID, dd.SealedSecret)
	if err != nil {
		return 0, errors.New("the webhook's secret cannot be opened with this KEK")
	}
	body := Body(dd.Change)
	id := MessageID(dd.Epoch, dd.DeliveryID)
	ts := d.Now().Unix()
	actx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, dd.URL, bytes.NewReader(body))
	if err != nil {
		return 0, errors.New("the receiver URL is not a URL this service can send to")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "trustframe-webhooks")
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", Sign(key, id, ts, body))
	resp, err := d.Client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return 0, fmt.Errorf("no answer within %s", d.Timeout)
		}
		// In plain words, as the console shows it: no dial error's text,
		// no resolved address.
		if why, ok := issuer.Unreachable(err, d.Timeout, "the receiver URL"); ok {
			return 0, errors.New(why)
		}
		return 0, errors.New("the receiver could not be reached; check its URL")
	}
	defer resp.Body.Close()
	// Read a bounded part of the answer (so the connection can be reused
	// for small ones); a huge or endless body is cut, not waited for.
	// The start of a refusal's answer is kept with it: a receiver's own
	// words ("signature mismatch") say more than its status code.
	head := make([]byte, answerKept+1) // one more: was the answer cut?
	n, _ := io.ReadFull(io.LimitReader(resp.Body, d.MaxBody), head)
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, d.MaxBody-int64(n)))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return resp.StatusCode, nil
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return resp.StatusCode, fmt.Errorf("HTTP %d: redirects are not followed; give the final URL", resp.StatusCode)
	default:
		if said := answerText(head[:n]); said != "" { // head[:n] may be answerKept+1 bytes: cut
			return resp.StatusCode, fmt.Errorf("HTTP %d: the receiver answered: %s", resp.StatusCode, said)
		}
		return resp.StatusCode, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
}

// answerKept is how much of a refusal's answer is kept with the attempt.
const answerKept = 300

// answerText is the start of a receiver's answer (b: up to answerKept
// bytes, one more when the answer goes on) as one line of text: whitespace
// runs become one space, control and format characters and broken UTF-8
// are left out, and a cut answer ends with "…".
func answerText(b []byte) string {
	cut := len(b) > answerKept
	b = b[:min(len(b), answerKept)]
	var sb strings.Builder
	space := false
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		switch {
		case r == utf8.RuneError && size <= 1: // broken, or a character cut at the end
			continue
		case unicode.IsSpace(r):
			space = sb.Len() > 0
			continue
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r): // also bidi overrides, zero-width marks
			continue
		}
		if space {
			sb.WriteByte(' ')
			space = false
		}
		sb.WriteRune(r)
	}
	if cut && sb.Len() > 0 {
		sb.WriteString("…")
	}
	return sb.String()
}
