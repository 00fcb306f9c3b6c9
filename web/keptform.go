package web

import (
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/trustframe/trustframe/handlers"
)

// keptFormKey is the session key of a form sent after the session expired.
const keptFormKey = "kept_form"

// maxKeptForm bounds what one kept form may hold (its JSON): far more than
// any console form's text fields, far less than a request body may carry.
const maxKeptForm = 64 << 10

// Anonymous kept forms are short-lived and few, because anyone may post a
// form without a session and each kept one is a session row on disk
// (docs/decisions.md, "Anonymous kept forms"). Over a bound the form is
// simply not kept: the answer is the same way to sign in.
const (
	keptFormLifetime      = 15 * time.Minute // time enough to sign in and come back
	maxKeptFormsPerClient = 10               // alive at once per client (clientNet)
	maxKeptForms          = 1000             // alive at once in all
	maxKeptFormBytes      = 16 << 20         // alive at once in all
)

// keptFormBudget counts the anonymous kept forms still alive, in all and
// per client, and their bytes.
type keptFormBudget struct {
	max, maxPerClient, maxBytes int

	mu        sync.Mutex
	held      []keptFormHeld // oldest first: all live equally long, so the first ends first
	perClient map[string]int
	bytes     int
}

type keptFormHeld struct {
	client string
	bytes  int
	until  time.Time
}

func newKeptFormBudget() *keptFormBudget {
	return &keptFormBudget{max: maxKeptForms, maxPerClient: maxKeptFormsPerClient, maxBytes: maxKeptFormBytes, perClient: map[string]int{}}
}

// take counts a form of n bytes kept for client until now+keptFormLifetime,
// or reports false when that would pass a bound.
func (b *keptFormBudget) take(now time.Time, client string, n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.held) > 0 && !b.held[0].until.After(now) {
		h := b.held[0]
		b.held = b.held[1:]
		b.bytes -= h.bytes
		if b.perClient[h.client]--; b.perClient[h.client] <= 0 {
			delete(b.perClient, h.client)
		}
	}
	if len(b.held) >= b.max || b.bytes+n > b.maxBytes || b.perClient[client] >= b.maxPerClient {
		return false
	}
	b.held = append(b.held, keptFormHeld{client: client, bytes: n, until: now.Add(keptFormLifetime)})
	b.perClient[client]++
	b.bytes += n
	return true
}

// keptForm is what was typed into a form sent without a session: the
// form's action and its values, secrets left out.
type keptForm struct {
	Action string              `json:"action"`
	Values map[string][]string `json:"values"`
}

// secretField names fields never kept: whatever looks like a secret, and
// the form's idempotency key (a form shown again is a new request).
func secretField(name string) bool {
	n := strings.ToLower(name)
	for _, s := range []string{"secret", "password", "token", "private", "idempotencykey"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// keepForm keeps the text fields of a form posted without a session in
// the (new, anonymous) session, to be put back in the form after sign-in
// (issue 13), and returns the page the form was on. Files and secrets are
// not kept. The values live in the server-side session until the form's
// page shows them; the anonymous session that keeps them lives
// keptFormLifetime (sign-in renews it for a session's full lifetime).
func (a *authenticator) keepForm(w http.ResponseWriter, r *http.Request) string {
	back := r.Header.Get("HX-Current-URL")
	if back == "" {
		back = r.Referer()
	}
	back = sameSitePath(back, r)
	// Anyone can post a form without a session, and a kept form is a
	// session written to the database: what is kept is bounded per request
	// (maxKeptForm), per client (the sign-in rate limit and keptForms) and
	// in all (keptForms), so that anonymous posts cannot fill the disk.
	// Over a bound the form is not kept; the answer is the same.
	client := a.s.clientNet(r)
	if ok, _ := a.s.limiter.allow(client); !ok {
		return back
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	r.Body = http.MaxBytesReader(w, r.Body, handlers.MaxBody)
	var vals url.Values
	switch ct {
	case "application/x-www-form-urlencoded":
		if r.ParseForm() == nil {
			vals = r.PostForm
		}
	case "multipart/form-data":
		if r.ParseMultipartForm(handlers.MaxBody) == nil && r.MultipartForm != nil {
			vals = r.MultipartForm.Value
		}
	}
	kept := keptForm{Action: r.URL.Path, Values: map[string][]string{}}
	for k, v := range vals {
		if !secretField(k) {
			kept.Values[k] = v
		}
	}
	b, _ := json.Marshal(kept)
	now := a.s.cfg.Now()
	if len(b) > maxKeptForm || !a.s.keptForms.take(now, client, len(b)) {
		return back
	}
	a.s.sessions.Put(r.Context(), keptFormKey, string(b))
	a.s.sessions.SetDeadline(r.Context(), now.Add(keptFormLifetime))
	return back
}

// sameSitePath is the path and query of u when it is a URL of this site
// (the request's host), else "/".
func sameSitePath(u string, r *http.Request) string {
	p, err := url.Parse(u)
	if err != nil || u == "" {
		return "/"
	}
	if p.Host != "" && p.Host != r.Host {
		return "/"
	}
	return localPath(p.RequestURI())
}

// KeptForm returns, once, the form kept by keepForm as JSON ("" when none).
func (f flasher) KeptForm(ctx context.Context) string {
	if ctx.Value(sessionLoadedKey{}) == nil {
		return ""
	}
	return f.sm.PopString(ctx, keptFormKey)
}
