package handlers

import "github.com/trustframe/trustframe/directory"

// The field limits are the application layer's (directory/limits.go).
const (
	maxName                  = directory.MaxName
	maxDescription           = directory.MaxDescription
	maxURL                   = directory.MaxURL
	maxVersion               = directory.MaxVersion
	maxRole                  = directory.MaxRole
	maxRoles                 = directory.MaxRoles
	maxRedirects             = directory.MaxRedirects
	maxOrigin                = directory.MaxOrigin
	maxOrigins               = directory.MaxOrigins
	maxFlags                 = directory.MaxFlags
	maxReason                = directory.MaxReason
	maxAttachmentDescription = directory.MaxAttachmentDescription
	maxAttachmentFileName    = directory.MaxAttachmentFileName
)

// checkList adds a message when list has more than maxItems items or an
// item longer than maxLen runes (maxLen 0: items unchecked).
func checkList(fields map[string]string, name string, list []string, maxItems, maxLen int) {
	f := directory.Fields{}
	f.List(name, list, maxItems, maxLen)
	for k, v := range f {
		fields[k] = v
	}
}
