package web

import (
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/trustframe/trustframe/handlers"
)

// keptFormKey is the session key of a form sent after the session expired.
const keptFormKey = "kept_form"

// maxKeptForm bounds what one kept form may hold (its JSON): far more than
// any console form's text fields, far less than a request body may carry.
const maxKeptForm = 64 << 10

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
// page shows them, at most the session's idle timeout (2 hours).
func (a *authenticator) keepForm(w http.ResponseWriter, r *http.Request) string {
	back := r.Header.Get("HX-Current-URL")
	if back == "" {
		back = r.Referer()
	}
	back = sameSitePath(back, r)
	// Anyone can post a form without a session, and a kept form is a
	// session written to the database: what is kept is bounded per request
	// (maxKeptForm) and per client address (the sign-in rate limit), so
	// that anonymous posts cannot fill the disk. Over either bound the form
	// is not kept; the answer is the same.
	if ok, _ := a.s.limiter.allow(a.s.clientAddr(r)); !ok {
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
	if len(b) > maxKeptForm {
		return back
	}
	a.s.sessions.Put(r.Context(), keptFormKey, string(b))
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
