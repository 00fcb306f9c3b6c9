package web

import (
	"context"
	"log/slog"
	"regexp"
	"strings"
)

// urlCredentials matches the user information of a URL (scheme://user:pass@),
// up to the last @ before the path, so a password with an @ is hidden whole.
var urlCredentials = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://)[^\s/?#]*@`)

// RedactURLs hides the credentials of every URL in s: smtp://u:pw@host
// becomes smtp://REDACTED@host. Log lines and start-up errors pass through it.
func RedactURLs(s string) string {
	if !strings.Contains(s, "@") { // no user information: most strings, every access-log line
		return s
	}
	return urlCredentials.ReplaceAllString(s, "${1}REDACTED@")
}

// RedactingHandler wraps a log handler so that no line carries a URL's
// credentials: the message and every attribute (strings, errors, values
// with a String method, groups) pass through RedactURLs.
func RedactingHandler(h slog.Handler) slog.Handler { return redacting{h} }

type redacting struct{ h slog.Handler }

func (r redacting) Enabled(ctx context.Context, l slog.Level) bool { return r.h.Enabled(ctx, l) }

func (r redacting) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, RedactURLs(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(redactAttr(a))
		return true
	})
	return r.h.Handle(ctx, out)
}

func (r redacting) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = redactAttr(a)
	}
	return redacting{r.h.WithAttrs(red)}
}

func (r redacting) WithGroup(name string) slog.Handler { return redacting{r.h.WithGroup(name)} }

func redactAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, RedactURLs(v.String()))
	case slog.KindGroup:
		g := v.Group()
		red := make([]any, len(g))
		for i, x := range g {
			red[i] = redactAttr(x)
		}
		return slog.Group(a.Key, red...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, RedactURLs(x.Error()))
		case interface{ String() string }:
			return slog.String(a.Key, RedactURLs(x.String()))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
