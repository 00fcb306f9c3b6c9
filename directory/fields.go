package directory

import (
	"net/mail"
	"strconv"
	"strings"
)

// Required adds "<label> is required." on name when s is blank.
func (f Fields) Required(name, s, label string) {
	if strings.TrimSpace(s) == "" {
		f.Add(name, label+" is required.")
	}
}

// MaxLen adds a message on name when s has more than max characters.
func (f Fields) MaxLen(name, s string, max int) {
	if len([]rune(s)) > max {
		f.Add(name, "At most "+strconv.Itoa(max)+" characters.")
	}
}

// ValidEmail reports whether s is a plain e-mail address (no display name).
func ValidEmail(s string) bool {
	if len(s) > 254 || strings.TrimSpace(s) != s || s == "" {
		return false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	return at > 0 && at < len(s)-1 && !strings.ContainsAny(s, " <>")
}

// DottedDomain reports an address whose domain has a dot and does not end
// with one: an address written to from outside (a contact's) is
// name@example.com, and name@localhost or name@example.com. is a typing
// mistake (docs/design.md §4).
func DottedDomain(email string) bool {
	domain := email[strings.LastIndexByte(email, '@')+1:]
	return strings.Contains(domain, ".") && !strings.HasSuffix(domain, ".")
}
