package views

import (
	"strings"
	"time"

	"github.com/trustframe/trustframe/store"
)

// Option is one choice of a select or a set of checkboxes.
type Option struct {
	Value, Label string
	Selected     bool
}

// Tab names of the organisation page.
const (
	TabDetails        = "details"
	TabContacts       = "contacts"
	TabServers        = "servers"
	TabApplications   = "applications"
	TabCertificates   = "certificates"
	TabKeyMaterial    = "keymaterial"
	TabDocuments      = "documents"
	TabRoles          = "roles"
	TabCertifications = "certifications"
	TabPeople         = "people"
)

// OrganisationsPage is the view model of the organisation list.
type OrganisationsPage struct {
	Items      []store.Organisation
	Q          string
	StatusOpts []Option
	FlagOpts   []Option
	RoleOpts   []Option            // the Role filter: "Domain — Role" (value Domain/Role, sent as DomainRole)
	Roles      map[string][]string // OrganisationId -> "Domain — Role" of its Active claims
	SortLinks  map[string]string
	SortField  string
	SortDesc   bool
	Total      int
	Page       int
	TotalPages int
	PrevURL    string
	NextURL    string
	Filtered   bool
	ExportURL  string // the CSV of this search, filters and sort
}

// SortChoice is one column of a list's "Sort by" select: its sort key (the
// one its column link uses) and the words for each direction.
type SortChoice struct{ Field, Label, Asc, Desc string }

// OrgSortChoices and ContactSortChoices are the sortable columns of the
// organisation list and the contacts tab, in the order of the columns.
var (
	OrgSortChoices = []SortChoice{
		{"OrganisationName", "Name", "A to Z", "Z to A"},
		{"RegistrationNumber", "Registration number", "ascending", "descending"},
		{"CountryOfRegistration", "Country", "A to Z", "Z to A"},
		{"Status", "Status", "A to Z", "Z to A"},
		{"CreatedOn", "Created", "oldest first", "newest first"},
	}
	ContactSortChoices = []SortChoice{
		{"ContactType", "Contact type", "A to Z", "Z to A"},
		{"FirstName", "First name", "A to Z", "Z to A"},
		{"LastName", "Last name", "A to Z", "Z to A"},
		{"EmailAddress", "E-mail", "A to Z", "Z to A"},
		{"PhoneNumber", "Phone", "ascending", "descending"},
	}
)

// SortOptions are the options of a "Sort by" select (name "sort"): each
// column ascending then descending, the current sort selected. The value is
// what a column link sends ("CreatedOn,desc"); the list's default order
// (def, ascending) is the empty value, so a search that did not choose a
// sort adds none to the URL, as before.
func SortOptions(choices []SortChoice, def, cur string, desc bool) []Option {
	opts := make([]Option, 0, 2*len(choices))
	for _, c := range choices {
		asc := c.Field + ",asc"
		if c.Field == def {
			asc = ""
		}
		opts = append(opts,
			Option{Value: asc, Label: c.Label + ", " + c.Asc, Selected: c.Field == cur && !desc},
			Option{Value: c.Field + ",desc", Label: c.Label + ", " + c.Desc, Selected: c.Field == cur && desc})
	}
	return opts
}

// SortState is the aria-sort value of a column.
func SortState(field, cur string, desc bool) string {
	if field != cur {
		return "none"
	}
	if desc {
		return "descending"
	}
	return "ascending"
}

// SortArrow is the visible sort mark of a column.
func SortArrow(field, cur string, desc bool) string {
	if field != cur {
		return ""
	}
	if desc {
		return " ▼"
	}
	return " ▲"
}

// OrgForm is the view model of the organisation form.
type OrgForm struct {
	Org        store.Organisation
	IsNew      bool
	Action     string
	Errors     map[string]string
	StatusOpts []Option
	FlagOpts   []Option
	Version    Version // the version being edited: a save over another's change is 412
}

// OrgPage is the common part of every tab of an organisation.
type OrgPage struct {
	Org        store.Organisation
	Tab        string
	StatusOpts []Option // statuses it can move to
}

// ContactsPage is the contacts tab.
type ContactsPage struct {
	OrgPage
	Contacts  []store.Contact
	SortLinks map[string]string
	SortField string
	SortDesc  bool
	Total     int
}

// ContactForm is the contact form.
type ContactForm struct {
	OrgID    string
	Contact  store.Contact
	IsNew    bool
	Action   string
	Errors   map[string]string
	TypeOpts []Option
	Version  Version // the version being edited
}

// ServersPage is the authorisation servers tab.
type ServersPage struct {
	OrgPage
	Servers   []store.AuthorisationServer
	FlagNames map[string]string
}

// ServerForm is the authorisation server form.
type ServerForm struct {
	OrgID        string
	Server       store.AuthorisationServer
	IsNew        bool
	Action       string
	Errors       map[string]string
	IssuerErrors []string
	StatusOpts   []Option
	FlagOpts     []Option
	Version      Version // the version being edited
}

// AppsPage is the applications tab.
type AppsPage struct {
	OrgPage
	Apps      []store.SoftwareStatement
	FlagNames map[string]string
}

// AppForm is the application form.
type AppForm struct {
	OrgID      string
	App        store.SoftwareStatement
	IsNew      bool
	Action     string
	Errors     map[string]string
	StatusOpts []Option
	FlagOpts   []Option
	ModeOpts   []Option
	RoleOpts   []Option // roles of the organisation's Active claims, and any the application still carries
	Version    Version  // the version being edited
}

// RefPage is a reference data list of name/description/status items.
type RefPage struct {
	Title    string
	Label    string // "contact type"
	Path     string
	Items    []store.ReferenceItem
	Form     store.ReferenceItem
	Errors   map[string]string
	Conflict string     // summary of a refused delete
	InTheWay []InTheWay // what stands in the way, from the payload
	Version  Version    // the edit form's (RefEdit)
}

// InTheWay is one record that stands in the way of a refused change, as a
// line, with a link to the page where it is changed when there is one.
type InTheWay struct {
	Text      string
	Href      string
	LinkLabel string
	// Name, when set, is the link (to Href) inside the line: Prefix, Name,
	// then Text ("Claim: " Acme Bank " holds Payments — PISP"), and
	// LinkLabel is not used.
	Prefix, Name string
}

// FlagTypeLabel is the human label of a flag's Type (the API keeps the
// enum value): "Authorisation server" for Authorisation_Server.
func FlagTypeLabel(t string) string {
	switch t {
	case "Software_Statement":
		return "Application"
	case "Authorisation_Server":
		return "Authorisation server"
	}
	return strings.ReplaceAll(t, "_", " ")
}

// FlagsPage is Reference Data > Flags.
type FlagsPage struct {
	Flags    []store.Flag
	Form     store.Flag
	Errors   map[string]string
	TypeOpts []Option
}

// CertsPage is the Certificates tab.
type CertsPage struct {
	OrgPage
	Certs []store.Certificate
	Now   time.Time
}

// CertWizard is the state of the certificate upload wizard.
type CertWizard struct {
	OrgID  string
	Step   string // type, upload, review
	Types  []store.CertificateType
	Type   string
	PEM    string
	Error  string
	Review *CertReview
}

// CertReview is what the review step shows.
type CertReview struct {
	Kid, Subject, Issuer, Serial string
	NotBefore, NotAfter          time.Time
}

// CertAuditPage is the certificates' Audit sub-tab.
type CertAuditPage struct {
	OrgPage
	AuditList
	CertificateType string
	Types           []store.CertificateType
}

// KeyMaterialPage is the Key material tab.
type KeyMaterialPage struct {
	OrgPage
	Items  []store.KeyMaterial
	Errors map[string]string
	Form   KeyMaterialForm
}

// KeyMaterialForm is what the create form keeps.
type KeyMaterialForm struct {
	Key         string `json:"Key" text:"raw"`
	Use         string `json:"Use"`
	Description string `json:"Description"`
}

// KeyMaterialDetail is one item of key material.
type KeyMaterialDetail struct {
	OrgPage
	Item        store.KeyMaterial
	Attachments []store.Attachment
	Reasons     []string
	Error       string
	// Edit is what the Edit form shows: the item, or what was sent when
	// the edit was refused; Errors are its messages by field (Use,
	// Description, RevokeReason), shown beside them.
	Edit   store.KeyMaterial
	Errors map[string]string
	// AttachDescription is what the Attach form shows after a refused
	// attachment, and AttachErrors its messages by field (file,
	// Description), shown beside them.
	AttachDescription string
	AttachErrors      map[string]string
	// RowID is the attachment whose description edit was refused: its row
	// shows RowDescription, what was sent, and RowError beside it.
	RowID, RowDescription, RowError string
}

// AppAuditPage is an application's Audit tab.
type AppAuditPage struct {
	OrgPage
	AuditList
	App store.SoftwareStatement
}

// CertStatus is what a certificate's status looks like now (expiry included).
func CertStatus(c store.Certificate, now time.Time) string {
	if c.Status == "Active" && !now.Before(c.NotAfter) {
		return "Expired"
	}
	return c.Status
}

type certView = store.Certificate

// DocumentsPage is the Documents tab.
type DocumentsPage struct {
	OrgPage
	Docs []store.Document
}

// DocumentForm is the Add/Edit Document wizard.
type DocumentForm struct {
	OrgPage
	Doc      store.Document
	TypeOpts []Option
	Errors   map[string]string
	// ExpiredWarning: the expiry date has passed; the form comes back
	// once with "Save anyway" (SaveExpired=1).
	ExpiredWarning bool
}

// CertificationsView lists the certifications of an application or server.
type CertificationsView struct {
	OrgPage
	SubjectName string
	Path        string
	Certs       []store.Certification
}

// OrgCertificationsPage is the Certifications tab of an organisation.
type OrgCertificationsPage struct {
	OrgPage
	Certs []store.OrgCertification
	Today time.Time
	// Holders are the applications and authorisation servers that can
	// hold a certification, each linked to the form that adds one.
	Holders []CertHolder
}

// CertHolder is an application or authorisation server on the
// Certifications tab: its name, its kind and its certifications page.
type CertHolder struct {
	Name, Kind, Href string
}

// CertificationForm is the Add/Edit Certification modal.
type CertificationForm struct {
	SubjectName string
	Path        string // the list of the holder's certifications
	Cert        store.Certification
	TypeOpts    []Option
	Errors      map[string]string
}

// RevokeReasonLabel is a revocation reason (orgkeys.RevokeReasons, the
// codes the API takes) in words, as the console shows it.
func RevokeReasonLabel(code string) string {
	switch code {
	case "unspecified":
		return "Unspecified"
	case "keycompromise":
		return "Key compromise (the private key may be known to others)"
	case "superseded":
		return "Superseded (replaced by a new key)"
	case "cessationofoperation":
		return "Cessation of operation (no longer used)"
	case "privilegewithdrawn":
		return "Privilege withdrawn"
	}
	return code
}

// revokeReasonShort is a revocation reason in words without its
// explanation, as a revoked item's status shows it.
func revokeReasonShort(code string) string {
	l := RevokeReasonLabel(code)
	if i := strings.Index(l, " ("); i > 0 {
		return l[:i]
	}
	return l
}
