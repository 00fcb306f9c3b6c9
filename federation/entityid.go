package federation

import (
	"github.com/trustframe/trustframe/formats"
)

// CheckEntityID checks a participant's federation entity ID
// (formats.CheckEntityID, docs/design.md §13).
func CheckEntityID(raw string, allowPrivate bool) string {
	return formats.CheckEntityID(raw, allowPrivate)
}
