package handlers

import (
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
)

// givenOnce refuses a query parameter of names given more than once: a
// handler reads the first, a proxy or cache may read the last.
func givenOnce(q url.Values, names ...string) error {
	for _, name := range names {
		if len(q[name]) > 1 {
			return CodeInvalidParameter.New(name + " is given more than once").WithFields(FieldError{Field: name, Code: FieldInvalid, Message: "give it once"})
		}
	}
	return nil
}

// ParseSort reads sort=Field,asc|desc against the allowed fields.
func ParseSort(q url.Values, allowed map[string]string, def string) (string, bool, error) {
	if err := givenOnce(q, "sort"); err != nil {
		return "", false, err
	}
	raw := q.Get("sort")
	if raw == "" {
		return def, false, nil
	}
	field, dir, _ := strings.Cut(raw, ",")
	if _, ok := allowed[field]; !ok {
		names := make([]string, 0, len(allowed))
		for k := range allowed {
			names = append(names, k)
		}
		sort.Strings(names)
		return "", false, CodeInvalidParameter.New("sort by one of " + strings.Join(names, ", ")).WithFields(FieldError{Field: "sort", Code: FieldInvalid, Message: "unknown sort field " + field})
	}
	switch strings.ToLower(dir) {
	case "", "asc":
		return field, false, nil
	case "desc":
		return field, true, nil
	}
	return "", false, CodeInvalidParameter.New("sort direction must be asc or desc").WithFields(FieldError{Field: "sort", Code: FieldInvalid, Message: "direction must be asc or desc"})
}

// SortLink builds the URL that sorts a list by field, flipping the direction
// when it is already the sort, and going back to page 0.
func SortLink(path string, q url.Values, field, curField string, curDesc bool) string {
	v := url.Values{}
	for k, vs := range q {
		v[k] = vs
	}
	dir := "asc"
	if field == curField && !curDesc {
		dir = "desc"
	}
	v.Set("sort", field+","+dir)
	v.Del("page")
	return path + "?" + v.Encode()
}

// PrevPage is the page a list's Previous link goes to: the one before,
// or the last page when page is past it (an old link, a typed URL).
func PrevPage(page, totalPages int) int {
	if page >= totalPages {
		return max(totalPages-1, 0)
	}
	return page - 1
}

// PageLink is the URL of another page of the same list.
func PageLink(path string, q url.Values, page int) string {
	v := url.Values{}
	for k, vs := range q {
		v[k] = vs
	}
	v.Set("page", strconv.Itoa(page))
	return path + "?" + v.Encode()
}

// PathParam is a URL parameter, unescaped (chi keeps escapes when the
// path has them, as for an e-mail with # or a name with a space).
func PathParam(r *http.Request, name string) string {
	v := chi.URLParam(r, name)
	if u, err := url.PathUnescape(v); err == nil {
		return u
	}
	return v
}
