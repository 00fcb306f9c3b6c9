// Package participants is the public participants list (GET
// /participants): which organisations it holds, its JSON written without
// reflection, and the answer built from it, plain and gzipped, with its
// ETag and Last-Modified, kept and rebuilt in the background (Cache).
// Serving the answer over HTTP is the handler's.
package participants

import (
	"context"

	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/store"
)

// Store is what the list is read from: Active organisations with their
// Active authorisation servers and Active authority claims.
type Store interface {
	Participants(ctx context.Context) ([]store.Participant, error)
}

// Read reads the list. With domain or role it keeps the organisations
// with an Active claim on that authorisation domain and role; statuses
// are written in vocab's words.
func Read(ctx context.Context, st Store, domain, role string, vocab lifecycle.Vocabulary) (List, error) {
	ps, err := st.Participants(ctx)
	if err != nil {
		return nil, err
	}
	if domain != "" || role != "" {
		kept := ps[:0]
		for _, p := range ps {
			for _, c := range p.OrgDomainRoleClaims {
				if (domain == "" || c.AuthorisationDomain == domain) && (role == "" || c.Role == role) {
					kept = append(kept, p)
					break
				}
			}
		}
		ps = kept
	}
	for i := range ps {
		ps[i].Status = vocab.Display(ps[i].Status)
		for j := range ps[i].AuthorisationServers {
			ps[i].AuthorisationServers[j].Status = vocab.Display(ps[i].AuthorisationServers[j].Status)
		}
	}
	return ps, nil
}
