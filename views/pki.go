package views

import (
	"time"

	"github.com/trustframe/trustframe/store"
)

// AppCertsPage is an application's Certificates page (docs/design.md §18):
// the certificates the directory's CA issued for it and the form that
// issues one from a CSR (PKIOn: the CA is on).
type AppCertsPage struct {
	OrgPage
	App   store.SoftwareStatement
	Certs []store.Certificate
	Now   time.Time
	PKIOn bool
	Form  IssueForm
}

// IssueForm is the issuing form: the type chosen among Uses, the CSR
// pasted, the refusal shown beside it.
type IssueForm struct {
	Uses  []string
	Type  string
	CSR   string
	Error string
}
