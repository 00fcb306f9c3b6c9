package formats

import "regexp"

// uuidRe is a UUID as the service writes ids and the API description's
// format uuid reads them: in lower case. In capitals it is the same UUID
// (RFC 9562 §4), which would make a second id for it.
var uuidRe = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// ValidUUID reports whether s is a UUID in lower case.
func ValidUUID(s string) bool { return uuidRe.MatchString(s) }
