package web

import (
	"net/http"

	"github.com/trustframe/trustframe/federation/anchor"
)

// resolveBudget answers 429 temporarily_unavailable, in the federation's
// error shape, to a resolve past the budget of resolves under way, in all
// and per client (an IPv6 client per /64): a resolve is public and
// fetches the subject's entity configuration (up to 10 s), so without a
// bound anyone could hold as many outbound fetches open as they hold
// requests (docs/design.md §13). The budget is the standalone anchor's
// (anchor.NewResolveBudget).
func (s *Server) resolveBudget(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := s.clientNet(r)
		if !s.resolves.Acquire(key) {
			anchor.WriteTooManyResolves(w)
			return
		}
		defer s.resolves.Release(key)
		next.ServeHTTP(w, r)
	})
}
