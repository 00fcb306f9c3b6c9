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
