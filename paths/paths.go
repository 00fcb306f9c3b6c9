// Package paths builds the console's URLs in one place, for views and
// handlers alike (docs/design.md §1.1): the store returns ids, never URLs.
// Every id is path-escaped. The API path of a resource is its console path
// under /api (API).
package paths

import "net/url"

func esc(s string) string { return url.PathEscape(s) }

// Organisations is the organisation list.
func Organisations() string { return "/organisations" }

// Organisation is an organisation's page.
func Organisation(org string) string { return "/organisations/" + esc(org) }

// OrganisationAudit is the audit log of one organisation's records.
func OrganisationAudit(org string) string { return "/audit?OrganisationId=" + url.QueryEscape(org) }

// OrganisationTab is one tab of an organisation's page ("contacts",
// "authorisationservers", "softwarestatements", "certificates",
// "key-material", "documents", "audit", …).
func OrganisationTab(org, tab string) string { return Organisation(org) + "/" + tab }

// Contact is one contact of an organisation.
func Contact(org, contact string) string {
	return OrganisationTab(org, "contacts") + "/" + esc(contact)
}

// Server is one authorisation server of an organisation.
func Server(org, server string) string {
	return OrganisationTab(org, "authorisationservers") + "/" + esc(server)
}

// Application is one application (software statement) of an organisation.
func Application(org, app string) string {
	return OrganisationTab(org, "softwarestatements") + "/" + esc(app)
}

// KeyMaterial is one item of an organisation's key material.
func KeyMaterial(org, id string) string { return OrganisationTab(org, "key-material") + "/" + esc(id) }

// Document is one regulatory document of an organisation.
func Document(org, doc string) string { return OrganisationTab(org, "documents") + "/" + esc(doc) }

// API is the API path of a console path.
func API(consolePath string) string { return "/api" + consolePath }

// Certificate is one certificate of an organisation, by its kid.
func Certificate(org, kid string) string {
	return OrganisationTab(org, "certificates") + "/kid/" + esc(kid)
}

// AppCertificate is one certificate of an application, by key id.
func AppCertificate(org, app, kid string) string {
	return Application(org, app) + "/certificates/kid/" + esc(kid)
}

// Claim is one authority claim (a role) of an organisation.
func Claim(org, claim string) string {
	return OrganisationTab(org, "authority-claims") + "/" + esc(claim)
}

// Attachment is one attachment of an item of key material.
func Attachment(org, keyMaterial, att string) string {
	return KeyMaterial(org, keyMaterial) + "/attachments/" + esc(att)
}

// TrustMarkTypes is the console's list of trust mark types (Reference Data).
func TrustMarkTypes() string { return "/references/trust-mark-types" }

// TrustMarkType is one trust mark type's page.
func TrustMarkType(id string) string { return TrustMarkTypes() + "/" + esc(id) }
