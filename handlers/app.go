package handlers

import (
	"context"
	"net/http"

	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/views"
)

// Flasher keeps one-shot messages shown after a redirect. Each says what
// happened and looks it: Put for a change made, Warn for a change made
// that needs a look, Refuse for nothing changed.
type Flasher interface {
	Put(ctx context.Context, msg string)
	Warn(ctx context.Context, msg string)
	Refuse(ctx context.Context, msg string)
	Pop(ctx context.Context) (msg, kind string)
	// KeptForm returns, once, what was typed into a form sent after the
	// session expired, as JSON {"action", "values"} for the page to put back.
	KeptForm(ctx context.Context) string
	// Stash keeps a value in the browser session for the next step of a
	// wizard (post/redirect/get); Stashed reads it and leaves it.
	Stash(ctx context.Context, key, value string)
	Stashed(ctx context.Context, key string) string
}

// Mailer sends a message; the development default writes it to the log.
type Mailer interface {
	Send(ctx context.Context, to, subject, body string) error
}

// Base is what every handler group shares.
type Base struct {
	Flash   Flasher
	BaseURL string
	DevIdP  bool
	Vocab   lifecycle.Vocabulary
}

// Shell builds the layout view model for a page.
func (b *Base) Shell(r *http.Request, title, active string, crumbs ...views.Crumb) views.Shell {
	p := PrincipalFrom(r.Context())
	s := views.Shell{EndWord: b.Vocab.EndWord(), OtherWord: b.Vocab.OtherWord(), Title: title, UserEmail: p.Email, SuperUser: p.IsSuperUser(), Can: CanOf(p), Active: active, Breadcrumbs: crumbs, DevIdP: b.DevIdP}
	if b.Flash != nil && p.Via != "token" {
		s.Flash, s.FlashKind = b.Flash.Pop(r.Context())
		if p.Via == "session" {
			s.KeptForm = b.Flash.KeptForm(r.Context())
		}
	}
	return s
}

// CanOf is what p may use in the console (views.Can): the one place a
// page learns which buttons and menu entries to leave out.
func CanOf(p Principal) views.Can {
	return views.Can{OrgAdmin: p.IsOrgAdmin(), Orgs: p.Orgs}
}
