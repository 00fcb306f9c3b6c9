package web

import "github.com/trustframe/trustframe/pki"

// SetCA turns the directory's CA on (nil: off) for a test, before any
// request.
func (s *Server) SetCA(ca *pki.CA) { s.ca = ca }
