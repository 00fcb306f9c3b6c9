package web

import (
	"context"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/pki"
	"github.com/trustframe/trustframe/store"
)

// CAKeyAAD binds the sealed key of the directory's CA to its use (doctor
// opens it too).
var CAKeyAAD = []byte("trustframe directory certificate authority key")

// CALifetime is how long the CA made at the first start is valid.
const CALifetime = 10 * 365 * 24 * time.Hour

// DefaultLeafLifetime is --pki-leaf-lifetime's default: 397 days.
const DefaultLeafLifetime = 9528 * time.Hour

// PKIName is the subject of a new CA: --pki-name (RFC 4514), or
// CN=<organisation name, else the base URL's host> Issuing CA.
func PKIName(name, orgName, baseURL string) (pkix.Name, error) {
	if name != "" {
		n, err := pki.ParseName(name)
		if err != nil {
			return pkix.Name{}, fmt.Errorf("--pki-name: %w", err)
		}
		return n, nil
	}
	who := orgName
	if who == "" {
		if u, err := url.Parse(baseURL); err == nil {
			who = u.Hostname()
		}
	}
	cn := []rune(who + " Issuing CA")
	if len(cn) > 64 {
		cn = append([]rune(who)[:64-len(" Issuing CA")], []rune(" Issuing CA")...)
	}
	return pkix.Name{CommonName: string(cn)}, nil
}

// openPKI loads the directory's CA, making it at the first start: its key
// sealed with the KEK, stored insert-or-keep, so that every instance on
// one PostgreSQL database uses the first one stored. The store gets its
// CRL signer, and a CRL is made when none is in force (docs/design.md §18).
func (s *Server) openPKI(ctx context.Context) error {
	cfg := &s.cfg
	if cfg.PKIKeyAlg == "" {
		cfg.PKIKeyAlg = pki.AlgES384
	}
	if cfg.PKIKeyAlg != pki.AlgES384 && cfg.PKIKeyAlg != pki.AlgRS3072 {
		return fmt.Errorf("web: --pki-key-alg %q: want %s or %s", cfg.PKIKeyAlg, pki.AlgES384, pki.AlgRS3072)
	}
	if cfg.PKILeafLifetime == 0 {
		cfg.PKILeafLifetime = DefaultLeafLifetime
	}
	if cfg.PKILeafLifetime < 0 {
		return fmt.Errorf("web: --pki-leaf-lifetime must be more than 0")
	}
	name, err := PKIName(cfg.PKIName, cfg.FederationOrganizationName, cfg.BaseURL)
	if err != nil {
		return fmt.Errorf("web: %w", err)
	}
	st, err := s.db.CAState(ctx)
	if errors.Is(err, store.ErrNotFound) {
		certDER, keyDER, err := pki.NewCA(name, cfg.PKIKeyAlg, cfg.Now(), CALifetime)
		if err != nil {
			return fmt.Errorf("web: making the certificate authority: %w", err)
		}
		st, err = s.db.KeepCA(ctx, certDER, s.kek.Seal(keyDER, CAKeyAAD), cfg.PKIKeyAlg)
		if err != nil {
			return err
		}
	} else if err != nil {
		return fmt.Errorf("web: the certificate authority: %w", err)
	}
	keyDER, err := s.kek.Open(st.SealedKey, CAKeyAAD)
	if err != nil {
		return fmt.Errorf("web: the certificate authority's key in the database does not open with this KEK: %w", err)
	}
	ca, err := pki.Load(st.CertDER, keyDER)
	if err != nil {
		return fmt.Errorf("web: the certificate authority in the database: %w", err)
	}
	if st.Alg != cfg.PKIKeyAlg || (cfg.PKIName != "" && ca.Cert.Subject.String() != name.String()) {
		// The flags make a CA; they never replace the one in use.
		s.log.Warn("the certificate authority was made before with another --pki-key-alg or --pki-name; it is kept as it is",
			"alg", st.Alg, "subject", ca.Cert.Subject.String())
	}
	s.pki = &directory.PKI{Store: s.db, CA: ca, Now: cfg.Now}
	s.ca = ca // what issuing signs with (routes.go)
	s.db.SetCRLSigner(s.pki.Signer())
	if _, err := s.db.RegenerateCRL(ctx, cfg.Now().Add(-12*time.Hour)); err != nil {
		return fmt.Errorf("web: %w", err)
	}
	return nil
}

// PKI is the directory's CA, nil unless --pki.
func (s *Server) PKI() *directory.PKI { return s.pki }
