package handlers

import (
	"net/http"
	"strings"
)

// shownInPage reports whether a browser's refusal is shown in the page it
// came from: every refusal below 500.
func shownInPage(r *http.Request, err error) bool {
	return !WantsJSON(r) && AsError(err).Status < 500
}

// refusalText is a refusal said in one line, away from its fields (at the
// top of a page, in a flash): the message of each field, or the refusal's
// own. A message FormRefusal wrote to stand beside its field ("This field
// …") is said with the field's name instead.
func refusalText(e *Error) string {
	var parts []string
	for _, f := range e.Fields {
		msg := f.Message
		if rest, ok := strings.CutPrefix(msg, "This field "); ok && f.Field != "" {
			msg = f.Field + " " + rest
		}
		parts = append(parts, msg)
	}
	if len(parts) == 0 {
		return e.Message
	}
	return strings.Join(parts, " ")
}
