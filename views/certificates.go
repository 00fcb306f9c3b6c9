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
