// Package views holds the templ components of the web interface. Every
// component is a pure function of its view model.
package views

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/trustframe/trustframe/formats"
)

// Shell is what the layout needs: the signed-in user, where we are and the flash.
type Shell struct {
	Title       string
	UserEmail   string
	SuperUser   bool
	Can         Can    // what the person may use: the menu and buttons shown
	Active      string // nav item: "organisations", "reference", "audit"
	Breadcrumbs []Crumb
	Flash       string
	FlashKind   string // success, warning or error
	KeptForm    string // JSON of a form sent after the session expired, put back by app.js
	DevIdP      bool
	EndWord     string // the end-state word in force (Withdrawn or Inactive)
	OtherWord   string // its accepted synonym
}

type remoteDevIdPKey struct{}

// WithRemoteDevIdP marks a request of a service whose development identity
// provider is open to remote clients: every page then says so.
func WithRemoteDevIdP(ctx context.Context) context.Context {
	return context.WithValue(ctx, remoteDevIdPKey{}, true)
}

func remoteDevIdP(ctx context.Context) bool {
	v, _ := ctx.Value(remoteDevIdPKey{}).(bool)
	return v
}

// Crumb is one breadcrumb; the last has no Href.
type Crumb struct {
	Label, Href string
}

// FormatTime formats a time for tables.
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// FormatTimePtr formats an optional time.
func FormatTimePtr(t *time.Time) string {
	if t == nil {
		return ""
	}
	return FormatTime(*t)
}

func itoa(i int) string { return strconv.Itoa(i) }

// esc escapes one path segment (an e-mail, a reference data name).
func esc(s string) string { return url.PathEscape(s) }

// joinNonEmpty joins the parts that are not blank.
func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

// plural is "1 contact" or "3 contacts" ("no contacts" for none).
func plural(n int, one, many string) string {
	if n == 0 {
		return "no " + many
	}
	return formats.Count(n, one, many)
}

// pageOf is a pager's "Page 2 of 5", or, for a page past the last one (an
// old link, a typed URL), says so.
func pageOf(page, totalPages int) string {
	last := max(totalPages, 1)
	if page+1 > last {
		return "Page " + itoa(page+1) + " is past the last page (" + itoa(last) + ")"
	}
	return "Page " + itoa(page+1) + " of " + itoa(last)
}

// otherEndWord is the other name of the end state: Inactive for Withdrawn
// and Withdrawn for Inactive (docs/design.md §4).
func otherEndWord(endWord string) string {
	if endWord == "Inactive" {
		return "Withdrawn"
	}
	return "Inactive"
}
