package web

import "github.com/trustframe/trustframe/dpop"

// SetDPoPReplay replaces where the server records the DPoP proofs it has
// seen (tests only; before the first proof): api for the resource server,
// token for the development identity provider's token endpoint; nil keeps
// the default.
func (s *Server) SetDPoPReplay(api, token dpop.ReplayStore) {
	if api != nil {
		s.dpop.Replay = api
	}
	if token != nil {
		s.tokDPoP.Replay = token
	}
}
