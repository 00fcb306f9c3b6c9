package handlers

// Field limits of the directory's resources (docs/decisions.md, "Field
// limits"): every free-text field and list has a maximum, and a value over
// it is a 422 naming the field.
const (
	maxName        = 200  // names, address lines, contact fields
	maxDescription = 2000 // descriptions of servers and applications
	maxURL         = 2000 // every URL field (issuer, JWKS, endpoints, redirect URIs)
	maxVersion     = 50   // an application's Version
	maxRole        = 100  // one role of an application
	maxRoles       = 20   // roles of an application
	maxRedirects   = 20   // redirect URIs of an application
	maxOrigin      = 300  // one WebAuthn origin
	maxOrigins     = 20   // WebAuthn origins of an application
	maxFlags       = 50   // flags on one resource
	maxReason      = 500  // StatusReason of an update (kept in the audit record)

	maxAttachmentDescription = 500 // an attachment's Description
	maxAttachmentFileName    = 255 // an attachment's file name, as most file systems take
)

// checkList adds a message when list has more than maxItems items or an
// item longer than maxLen runes (maxLen 0: items unchecked).
func checkList(fields map[string]string, name string, list []string, maxItems, maxLen int) {
	if len(list) > maxItems {
		fields[name] = "At most " + itoa(maxItems) + " items."
		return
	}
	if maxLen == 0 {
		return
	}
	for _, s := range list {
		if len([]rune(s)) > maxLen {
			fields[name] = "At most " + itoa(maxLen) + " characters per item."
			return
		}
	}
}
