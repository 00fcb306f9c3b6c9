package directory

import (
	"context"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"math/big"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ocsp"

	"github.com/trustframe/trustframe/pki"
)

// RevokedSerial is a certificate the directory's CA issued and that is
// revoked, as the CRL lists it: its serial in upper-case hex (the
// certificate's SerialNumber), when and why (one of orgkeys.RevokeReasons).
type RevokedSerial struct {
	Serial string
	At     time.Time
	Reason string
}

// CRLSigner makes the CA's CRL number listing revoked, valid from now: the
// store calls it inside the transaction that revokes a certificate the CA
// issued, so that the CRL in force and the revocation are one write.
type CRLSigner func(number int64, revoked []RevokedSerial, now time.Time) ([]byte, error)

// CAState is the CA as the store keeps it (docs/design.md §18).
type CAState struct {
	CertDER   []byte
	SealedKey []byte
	Alg       string
	CreatedAt time.Time
	CRLNumber int64
	CRLDER    []byte    // the CRL in force; nil before the first
	CRLAt     time.Time // when it was made
}

// CACertStatus is what the store knows of a certificate the CA issued.
type CACertStatus struct {
	Status    string // Active or Revoked
	Reason    string
	RevokedOn time.Time
}

// CACounts are how many certificates the CA issued, and of them revoked.
type CACounts struct{ Issued, Revoked int }

// PKIStore is what the CA's use cases need of the database.
type PKIStore interface {
	// CAState is the stored CA (ErrNotFound before the first start with --pki).
	CAState(ctx context.Context) (CAState, error)
	// RegenerateCRL signs a new CRL (number + 1) with the signer the store
	// was given when none is stored or the one in force was made before
	// staleBefore (always with a zero staleBefore), and returns the CA with
	// the CRL in force.
	RegenerateCRL(ctx context.Context, staleBefore time.Time) (CAState, error)
	// CACertStatus reads one certificate the CA issued by its serial
	// (upper-case hex); ErrNotFound when it issued none with it.
	CACertStatus(ctx context.Context, serial string) (CACertStatus, error)
	CACounts(ctx context.Context) (CACounts, error)
}

// crlRefresh is how old the CRL in force may be before a request for it
// makes a new one: half of its 24 hours, so that a relying party that
// fetched it just before always has one in date.
const crlRefresh = 12 * time.Hour

// PKI are the public use cases of the directory's CA: its certificate,
// the CRL in force and OCSP answers (docs/design.md §18).
type PKI struct {
	Store PKIStore
	CA    *pki.CA
	Now   func() time.Time

	answers answerCache
}

// answerCache keeps signed OCSP answers for a minute, by what they say:
// the serial, the request's hash, and the status just read from the store
// (with its reason and time). A revocation changes the key, so a kept
// answer is never staler than the store read of the request it serves;
// only the signature is saved (RFC 5019 §2.1.1 lets a responder sign
// answers ahead).
type answerCache struct {
	mu sync.Mutex
	m  map[answerKey]keptAnswer
}

type answerKey struct {
	serial, hash string
	st           pki.CertStatus
}

type keptAnswer struct {
	der []byte
	at  time.Time
}

// answerReuse is how long a signed answer is given again; maxAnswers
// bounds the answers kept (all are dropped when it is reached).
const (
	answerReuse = time.Minute
	maxAnswers  = 20000
	// maxSerialOctets is RFC 5280's bound of a serial number (the CA's
	// own are 17 octets at most).
	maxSerialOctets = 20
)

func (c *answerCache) get(k answerKey, now time.Time) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.m[k]
	if !ok || now.Sub(a.at) >= answerReuse || now.Before(a.at) {
		return nil
	}
	return a.der
}

func (c *answerCache) put(k answerKey, der []byte, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxAnswers {
		c.m = map[answerKey]keptAnswer{}
	}
	c.m[k] = keptAnswer{der: der, at: at}
}

// CertPEM is the CA's certificate as PEM.
func (p *PKI) CertPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.CA.Cert.Raw})
}

// CertDER is the CA's certificate, DER.
func (p *PKI) CertDER() []byte { return p.CA.Cert.Raw }

// CRL is the CRL in force, the newest any instance stored; one older than
// half its life (or none) is made anew first.
func (p *PKI) CRL(ctx context.Context) ([]byte, error) {
	st, err := p.Store.CAState(ctx)
	if err != nil {
		return nil, err
	}
	if st.CRLDER != nil && !st.CRLAt.Before(p.Now().Add(-crlRefresh)) {
		return st.CRLDER, nil
	}
	st, err = p.Store.RegenerateCRL(ctx, p.Now().Add(-crlRefresh))
	return st.CRLDER, err
}

// Signer is the CRLSigner of the CA: what the store calls.
func (p *PKI) Signer() CRLSigner {
	return func(number int64, revoked []RevokedSerial, now time.Time) ([]byte, error) {
		list := make([]pki.Revoked, 0, len(revoked))
		for _, r := range revoked {
			serial, ok := parseSerial(r.Serial)
			if !ok {
				continue // not a serial the CA could have written
			}
			list = append(list, pki.Revoked{Serial: serial, At: r.At, Reason: pki.ReasonCode(r.Reason)})
		}
		return p.CA.CRL(number, list, now)
	}
}

func parseSerial(s string) (*big.Int, bool) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) == 0 {
		return nil, false
	}
	return new(big.Int).SetBytes(b), true
}

// SerialText is a serial as the store keeps it: upper-case hex of its
// bytes (orgkeys.ParseCertificate's SerialNumber).
func SerialText(n *big.Int) string { return strings.ToUpper(hex.EncodeToString(n.Bytes())) }

// OCSP answers an RFC 6960 request: good, revoked (with its reason and
// time) or unknown (a serial the CA did not issue, a request about another
// issuer), signed by the CA. A request that does not parse gets the
// malformedRequest answer. The status is read from the store on every
// request, so that a revocation by any instance is answered at once; an
// answer signed within the minute for the same status is given again. An
// error is the server's (the store's), not the request's.
func (p *PKI) OCSP(ctx context.Context, request []byte) ([]byte, error) {
	req, err := ocsp.ParseRequest(request)
	if err != nil {
		return ocsp.MalformedRequestErrorResponse, nil
	}
	if req.SerialNumber == nil || !req.HashAlgorithm.Available() {
		return ocsp.MalformedRequestErrorResponse, nil
	}
	if len(req.SerialNumber.Bytes()) > maxSerialOctets {
		// No certificate has such a serial (RFC 5280 §4.1.2.2), and an
		// answer about it would be signed and kept in memory at the
		// asker's choice of size.
		return ocsp.MalformedRequestErrorResponse, nil
	}
	st := pki.CertStatus{Status: pki.Unknown}
	if p.CA.ForThisCA(req) && req.SerialNumber.Sign() > 0 {
		cs, err := p.Store.CACertStatus(ctx, SerialText(req.SerialNumber))
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			return nil, err
		case cs.Status == "Revoked":
			st = pki.CertStatus{Status: pki.IsRevoked, RevokedAt: cs.RevokedOn, Reason: pki.ReasonCode(cs.Reason)}
		default:
			st = pki.CertStatus{Status: pki.Good}
		}
	}
	now := p.Now()
	key := answerKey{serial: req.SerialNumber.String(), hash: req.HashAlgorithm.String(), st: st}
	if der := p.answers.get(key, now); der != nil {
		return der, nil
	}
	der, err := p.CA.OCSPAnswer(req, st, now)
	if err != nil {
		return ocsp.MalformedRequestErrorResponse, nil // a request the answer cannot be made for (its hash)
	}
	p.answers.put(key, der, now)
	return der, nil
}

// CASummary is what Reference Data > Certificate authority shows.
type CASummary struct {
	Cert      *x509.Certificate
	Alg       string
	CreatedAt time.Time
	CRLNumber int64
	CRLAt     time.Time
	Counts    CACounts
}

// Summary is the CA, its CRL in force and its counts.
func (p *PKI) Summary(ctx context.Context) (CASummary, error) {
	st, err := p.Store.CAState(ctx)
	if err != nil {
		return CASummary{}, err
	}
	counts, err := p.Store.CACounts(ctx)
	if err != nil {
		return CASummary{}, err
	}
	return CASummary{Cert: p.CA.Cert, Alg: st.Alg, CreatedAt: st.CreatedAt, CRLNumber: st.CRLNumber, CRLAt: st.CRLAt, Counts: counts}, nil
}
