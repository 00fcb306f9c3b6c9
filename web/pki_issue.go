package web

import (
	"context"

	"github.com/trustframe/trustframe/pki"
)

// caSource is the directory's CA for the use cases that issue and publish
// certificates: nil while --pki is off (docs/design.md §18).
func (s *Server) caSource(context.Context) (*pki.CA, error) { return s.ca, nil }
