package directory

// OrgFilter selects and orders organisations: the organisation list's
// search, filters, sort and page.
type OrgFilter struct {
	Q      string // searches name and registration number
	Status string // canonical
	Flag   string
	Role   string // organisations with an Active claim on a role of this name
	Domain string // … in this authorisation domain
	Sort   string // OrganisationName, RegistrationNumber, CountryOfRegistration, Status, CreatedOn
	Desc   bool
	Page   int
	Size   int
}

// Found is what an identifier names.
type Found struct {
	What           string // one of the Found* kinds
	Name           string // what to call it
	OrganisationID string // the organisation it belongs to
	ID             string // its own id (the kid for a certificate)
}

// The kinds of thing an identifier can name (Found.What).
const (
	FoundOrganisation = "organisation"
	FoundApplication  = "application"
	FoundServer       = "authorisation server"
	FoundCertificate  = "certificate"
	FoundKeyMaterial  = "key material"
)
