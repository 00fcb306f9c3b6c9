package directory

import "strconv"

// Field limits of the directory's resources (docs/decisions.md, "Field
// limits"): every free-text field and list has a maximum, and a value over
// it is refused naming the field.
const (
	MaxName        = 200  // names, address lines, contact fields
	MaxDescription = 2000 // descriptions of servers and applications
	MaxURL         = 2000 // every URL field (issuer, JWKS, endpoints, redirect URIs)
	MaxVersion     = 50   // an application's Version
	MaxRole        = 100  // one role of an application
	MaxRoles       = 20   // roles of an application
	MaxRedirects   = 20   // redirect URIs of an application
	MaxOrigin      = 300  // one WebAuthn origin
	MaxOrigins     = 20   // WebAuthn origins of an application
	MaxFlags       = 50   // flags on one resource
	MaxReason      = 500  // StatusReason of an update (kept in the audit record)

	MaxAttachmentDescription = 500 // an attachment's Description
	MaxAttachmentFileName    = 255 // an attachment's file name, as most file systems take
)

// List adds a message on name when list has more than maxItems items or an
// item longer than maxLen characters (maxLen 0: items unchecked).
func (f Fields) List(name string, list []string, maxItems, maxLen int) {
	if len(list) > maxItems {
		f.Add(name, "At most "+strconv.Itoa(maxItems)+" items.")
		return
	}
	if maxLen == 0 {
		return
	}
	for _, s := range list {
		if len([]rune(s)) > maxLen {
			f.Add(name, "At most "+strconv.Itoa(maxLen)+" characters per item.")
			return
		}
	}
}
