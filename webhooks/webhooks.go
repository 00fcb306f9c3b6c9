// Package webhooks sends the directory's changes to subscribed receivers
// (docs/design.md §15): Standard Webhooks signatures, a guarded HTTP
// client, retries with backoff for 24 hours, and a lease on each delivery
// so that several instances on one database send every delivery once.
package webhooks

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/trustframe/trustframe/formats"
	"github.com/trustframe/trustframe/issuer"
	"github.com/trustframe/trustframe/store"
)

// SecretPrefix starts every webhook secret (Standard Webhooks).
const SecretPrefix = "whsec_"

// NewSecret makes a secret: the prefix and base64 of 32 random bytes.
func NewSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// ParseSecret returns the key of a secret in the Standard Webhooks form
// (whsec_ and base64 of 24 to 64 bytes).
func ParseSecret(s string) ([]byte, error) {
	if !strings.HasPrefix(s, SecretPrefix) {
		return nil, errors.New("a secret starts with " + SecretPrefix)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, SecretPrefix))
	if err != nil {
		return nil, errors.New("after " + SecretPrefix + " a secret is standard base64")
	}
	if len(key) < 24 || len(key) > 64 {
		return nil, errors.New("a secret holds 24 to 64 bytes (base64 of 32 random bytes is usual)")
	}
	return key, nil
}

// Sign is the webhook-signature header value of a message: "v1," and the
// base64 HMAC-SHA256 of "id.timestamp.body" under key.
func Sign(key []byte, id string, timestamp int64, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + strconv.FormatInt(timestamp, 10) + "."))
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// Payload is the body of a delivery: {"type","timestamp","data"}.
type Payload struct {
	Type      string       `json:"type"`
	Timestamp time.Time    `json:"timestamp"`
	Data      store.Change `json:"data"`
}

// Body is the JSON body announcing c.
func Body(c store.Change) []byte {
	b, _ := json.Marshal(Payload{Type: c.SubjectType + "." + c.Action, Timestamp: c.Time, Data: c})
	return b
}

// MessageID is the webhook-id of a delivery: the same for every attempt
// and redelivery of it. It carries the first 16 hex digits of the feed's
// epoch because delivery ids alone repeat after a restore from a backup
// (the restored database makes a new epoch), and receivers deduplicate by
// webhook-id.
func MessageID(epoch string, deliveryID int64) string {
	return "msg_" + epoch[:min(16, len(epoch))] + "_" + strconv.FormatInt(deliveryID, 10)
}

// CheckURL returns why raw cannot be a webhook URL ("" when it can): it
// must be https (http only when private receivers are allowed), without
// credentials or fragment, and its host must be public — an IP literal is
// judged directly, a name by what it resolves to now (the client checks
// again at every connection, so a name that changes later is refused then).
func CheckURL(ctx context.Context, raw string, allowPrivate bool, resolver *net.Resolver) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "The receiver URL must be an absolute https URL."
	}
	if len(raw) > 2000 {
		return "The receiver URL is longer than 2000 characters."
	}
	if u.Scheme != "https" && !(allowPrivate && u.Scheme == "http") {
		return "The receiver URL must be https."
	}
	if u.User != nil {
		return "The receiver URL must not carry a user name or password."
	}
	if u.Fragment != "" {
		return "The receiver URL must not have a fragment."
	}
	if p := u.Port(); p != "" && !formats.ValidPort(p) {
		return "The receiver URL's port must be a number from 1 to 65535."
	}
	if allowPrivate {
		return ""
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); ip != nil {
		if !issuer.Public(ip) {
			return "The receiver URL must point to a public address (this one is private, loopback or reserved)."
		}
		return ""
	}
	if h := strings.ToLower(strings.TrimSuffix(host, ".")); h == "localhost" || strings.HasSuffix(h, ".localhost") || !strings.Contains(h, ".") {
		return "The receiver URL must name a public host."
	}
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	addrs, err := resolver.LookupIPAddr(rctx, host)
	if err != nil || len(addrs) == 0 {
		return "The receiver URL's host " + host + " could not be resolved."
	}
	for _, a := range addrs {
		if !issuer.Public(a.IP) {
			return "The receiver URL's host " + host + " resolves to an address that is not public."
		}
	}
	return ""
}

// Client is the guarded client deliveries go through: public addresses
// only unless allowPrivate (checked at every dial), timeout per attempt,
// and redirects are not followed (a 3xx is a failed attempt).
func Client(allowPrivate bool, timeout time.Duration) *http.Client {
	c := (&issuer.Validator{AllowPrivate: allowPrivate, Timeout: timeout}).Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

// Backoff is the wait before retry n (1 for the first retry): 5 s, 30 s,
// 2 min, 10 min, 30 min, then hourly (docs/design.md §15).
func Backoff(n int) time.Duration {
	steps := []time.Duration{5 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute, 30 * time.Minute}
	if n >= 1 && n <= len(steps) {
		return steps[n-1]
	}
	return time.Hour
}
