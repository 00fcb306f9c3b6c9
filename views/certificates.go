package views

import (
	"github.com/trustframe/trustframe/orgkeys"
	"github.com/trustframe/trustframe/store"
)

// AuditList is what an audit sub-tab (a certificate's, an application's)
// shows: a page of records as a person reads them, the filters asked
// (KeyID, Action) with the actions to choose from, and the links to the
// list without its Action filter and to the pages around.
type AuditList struct {
	Records        []store.AuditRecord
	Entries        []AuditEntry
	Actions        []string
	Total          int
	KeyID          string
	Action         string
	Path           string
	ClearActionURL string
	PrevURL        string
	NextURL        string
}

// CertReviewOf is what the review step of an upload shows of the
// certificate c.
func CertReviewOf(c *orgkeys.Certificate) *CertReview {
	return &CertReview{Kid: c.Kid, Subject: c.SubjectDN, Issuer: c.IssuerDN, Serial: c.Serial, NotBefore: c.Cert.NotBefore, NotAfter: c.Cert.NotAfter}
}

// CertWizardAt is the first step of the certificate wizard the URL asks
// for: the upload step of typ when it is an Active type (typeActive),
// else the type step, saying what to do when Next was pressed (next)
// without a type or with one that is not an Active type.
func CertWizardAt(typ string, next, typeActive bool) CertWizard {
	switch {
	case typ == "" && next:
		return CertWizard{Step: "type", Error: "Choose a certificate type, then Next."}
	case typ == "":
		return CertWizard{Step: "type"}
	case !typeActive:
		return CertWizard{Step: "type", Error: "Choose one of the certificate types."}
	}
	return CertWizard{Step: "upload", Type: typ}
}
