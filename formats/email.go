package formats

import (
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ValidEmail reports whether s is an ordinary e-mail address: local@domain
// with exactly one @, as people type them — no display name, comment,
// quoted local part ("a@b"@c), domain literal ([192.0.2.1]), space or
// invisible character (U+200B), valid UTF-8, at most 254 bytes, a local
// part of at most 64. It is the one check of every
// e-mail the directory takes, typed by people or read from tokens
// (docs/design.md §3).
func ValidEmail(s string) bool {
	if s == "" || len(s) > 254 || strings.Count(s, "@") != 1 || strings.ContainsAny(s, "\"[]()<>\\ ,;:") {
		return false
	}
	if !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool { return !unicode.IsGraphic(r) || unicode.IsSpace(r) }) >= 0 {
		return false
	}
	local, domain, _ := strings.Cut(s, "@")
	if local == "" || len(local) > 64 || domain == "" {
		return false
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Name == "" && a.Address == s
}

// ValidAdminEmail reports whether s may name an administrator: an ordinary
// address (ValidEmail) of printable ASCII only. An administrator is known
// by the e-mail alone, so an address that only looks like another one
// (fullwidth letters, the Kelvin sign for k, Cyrillic а for a) is refused
// rather than compared by some folding (docs/decisions.md).
func ValidAdminEmail(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return ValidEmail(s)
}
