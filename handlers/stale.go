package handlers

import (
	"net/http"

	"github.com/trustframe/trustframe/views"
)

// The version an edit form carries, one mechanism for every edit form with
// a version (issue 40; views.Version): the form sends the ETag of the
// record it shows as IfMatch; a save over another's change is refused
// (412) and the form comes back with what was typed, what is stored now
// beside it, and the stored version's ETag — so that saving again applies
// what was typed on top, and the form's own page discards it.

// useFormVersion makes a form's IfMatch field the request's If-Match (a
// form sends no header); a header sent is kept.
func useFormVersion(r *http.Request) {
	if im := r.PostFormValue("IfMatch"); im != "" && r.Header.Get("If-Match") == "" {
		r.Header.Set("If-Match", im)
	}
}

// stale reports whether err is a console form's save refused because the
// record changed since the form was shown: the form is shown again (with
// editVersion), not an error page.
func stale(r *http.Request, err error) bool {
	return err != nil && !WantsJSON(r) && AsError(err).Status == http.StatusPreconditionFailed
}

// editVersion is the Version of an edit form showing shown with status:
// shown's ETag when the form is first shown (a GET of the stored record);
// after a 412, the ETag of the record stored now (read by get) with its
// members beside the typed ones (shown) — labels name the form's fields
// where their member names read badly, names reads ids in values; else
// the version the form was opened on, which it sent.
func editVersion[T any](r *http.Request, status int, shown T, get func() (T, error), labels, names map[string]string) views.Version {
	v := views.Version{Discard: r.URL.Path}
	switch {
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		v.IfMatch = ETagOf(shown)
		return v
	case status == http.StatusPreconditionFailed:
		cur, err := get()
		if err != nil {
			break
		}
		var fields []string
		for k := range r.PostForm {
			fields = append(fields, k)
		}
		v.IfMatch = ETagOf(cur)
		v.Stale = views.NewStale(fields, shown, cur, labels, names)
		v.Discard = r.URL.Path + "/edit"
		return v
	}
	v.IfMatch = r.PostFormValue("IfMatch")
	v.Discard = r.URL.Path + "/edit"
	return v
}
