package directory

import "time"

// ExpiringCertificate is an active (not revoked) organisation certificate
// that has expired or expires before the horizon.
type ExpiringCertificate struct {
	Kid              string    `json:"kid"`
	OrganisationID   string    `json:"OrganisationId"`
	OrganisationName string    `json:"OrganisationName"`
	CertificateType  string    `json:"CertificateType"`
	SubjectDN        string    `json:"SubjectDN"`
	NotAfter         time.Time `json:"NotAfter"`
}

// ExpiringDocument is a regulatory document whose expiry date has passed or
// comes before the horizon.
type ExpiringDocument struct {
	DocumentID              string `json:"DocumentId"`
	OrganisationID          string `json:"OrganisationId"`
	OrganisationName        string `json:"OrganisationName"`
	DocumentType            string `json:"DocumentType"`
	DocumentReferenceNumber string `json:"DocumentReferenceNumber"`
	DocumentExpiryDate      string `json:"DocumentExpiryDate"`
}

// ExpiringCertification is an Active certification of an application or
// authorisation server whose expiration date has passed or comes before the
// horizon.
type ExpiringCertification struct {
	CertificationID             string `json:"CertificationId"`
	OrganisationID              string `json:"OrganisationId"`
	OrganisationName            string `json:"OrganisationName"`
	SubjectType                 string `json:"SubjectType"`
	SubjectID                   string `json:"SubjectId"`
	SubjectName                 string `json:"SubjectName"`
	CertificationType           string `json:"CertificationType"`
	CertificationExpirationDate string `json:"CertificationExpirationDate"`
}

// Expiring is everything that needs renewing before a date, soonest first.
type Expiring struct {
	Before         time.Time               `json:"Before"`
	Certificates   []ExpiringCertificate   `json:"Certificates"`
	Documents      []ExpiringDocument      `json:"Documents"`
	Certifications []ExpiringCertification `json:"Certifications"`
	// Truncated: a list was cut at the limit.
	Truncated bool `json:"Truncated"`
}

// NoticeItem is one thing an expiry notice announces.
type NoticeItem struct {
	Kind   string // Certificate, Document, Certification
	ID     string
	Expiry string // YYYY-MM-DD
}

// Items are the notice items of an Expiring report.
func (e Expiring) Items() []NoticeItem {
	var out []NoticeItem
	for _, c := range e.Certificates {
		out = append(out, NoticeItem{"Certificate", c.Kid, c.NotAfter.UTC().Format("2006-01-02")})
	}
	for _, d := range e.Documents {
		out = append(out, NoticeItem{"Document", d.DocumentID, d.DocumentExpiryDate})
	}
	for _, c := range e.Certifications {
		out = append(out, NoticeItem{"Certification", c.CertificationID, c.CertificationExpirationDate})
	}
	return out
}

// ForOrganisation keeps the items of one organisation.
func (e Expiring) ForOrganisation(orgID string) Expiring {
	out := Expiring{Before: e.Before}
	for _, c := range e.Certificates {
		if c.OrganisationID == orgID {
			out.Certificates = append(out.Certificates, c)
		}
	}
	for _, d := range e.Documents {
		if d.OrganisationID == orgID {
			out.Documents = append(out.Documents, d)
		}
	}
	for _, c := range e.Certifications {
		if c.OrganisationID == orgID {
			out.Certifications = append(out.Certifications, c)
		}
	}
	return out
}

// Organisations are the ids of the organisations with items, in the order
// they first appear.
func (e Expiring) Organisations() []string {
	seen := map[string]bool{}
	var out []string
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, c := range e.Certificates {
		add(c.OrganisationID)
	}
	for _, d := range e.Documents {
		add(d.OrganisationID)
	}
	for _, c := range e.Certifications {
		add(c.OrganisationID)
	}
	return out
}
