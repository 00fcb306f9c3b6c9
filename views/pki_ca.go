package views

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/trustframe/trustframe/directory"
)

// CAPage is Reference Data > Certificate authority (docs/design.md §18);
// On is false when --pki is off.
type CAPage struct {
	On                  bool
	Subject, Issuer     string
	Alg                 string
	Serial              string
	NotBefore, NotAfter time.Time
	Fingerprint         string // SHA-256 of the DER, hex pairs
	PEMURL, DERURL      string
	CRLURL, OCSPURL     string
	CRLNumber           int64
	CRLAt               time.Time
	CRLNextUpdate       time.Time
	Issued, Revoked     int
	Expired             bool // the CA's certificate is out of date now
}

// NewCAPage is the page of the CA summary sum, its URLs under baseURL.
func NewCAPage(sum directory.CASummary, baseURL string, now time.Time) CAPage {
	c := sum.Cert
	fp := sha256.Sum256(c.Raw)
	pairs := make([]string, len(fp))
	for i, b := range fp {
		pairs[i] = strings.ToUpper(hex.EncodeToString([]byte{b}))
	}
	base := strings.TrimRight(baseURL, "/")
	p := CAPage{On: true, Subject: c.Subject.String(), Issuer: c.Issuer.String(), Alg: sum.Alg, Serial: directory.SerialText(c.SerialNumber),
		NotBefore: c.NotBefore, NotAfter: c.NotAfter, Fingerprint: strings.Join(pairs, ":"),
		PEMURL: base + "/pki/ca.pem", DERURL: base + "/pki/ca.crt", CRLURL: base + "/pki/crl", OCSPURL: base + "/pki/ocsp",
		CRLNumber: sum.CRLNumber, CRLAt: sum.CRLAt, Issued: sum.Counts.Issued, Revoked: sum.Counts.Revoked,
		Expired: now.After(c.NotAfter) || now.Before(c.NotBefore)}
	if !sum.CRLAt.IsZero() {
		p.CRLNextUpdate = sum.CRLAt.Add(24 * time.Hour)
	}
	return p
}

// AlgName says a key algorithm of the CA in words.
func (p CAPage) AlgName() string {
	switch p.Alg {
	case "ES384":
		return "ECDSA P-384 (ES384)"
	case "RS3072":
		return "RSA 3072 (RS3072)"
	}
	return p.Alg
}
