package store

import (
	"context"
	"time"

	"github.com/trustframe/trustframe/directory"
)

// The lists of what needs renewing (directory/expiring.go).
type (
	Expiring              = directory.Expiring
	ExpiringCertificate   = directory.ExpiringCertificate
	ExpiringDocument      = directory.ExpiringDocument
	ExpiringCertification = directory.ExpiringCertification
)

// Expiring lists what has expired or expires before `before`, at most limit
// items of each kind, soonest first. Items of Withdrawn (Inactive)
// organisations, and withdrawn documents, are left out: nobody relies on
// them any more.
func (d *DB) Expiring(ctx context.Context, before time.Time, limit int) (Expiring, error) {
	return d.expiring(ctx, before, limit, false)
}

// Attention is Expiring without the items acknowledged at their present
// expiry: the start page's "Needs attention".
func (d *DB) Attention(ctx context.Context, before time.Time, limit int) (Expiring, error) {
	return d.expiring(ctx, before, limit, true)
}

// notAcknowledged leaves out an item acknowledged at the expiry it has
// now (AND …, or nothing when all are wanted).
func notAcknowledged(on bool, kind, id, expiry string) string {
	if !on {
		return ""
	}
	return ` AND NOT EXISTS (SELECT 1 FROM acknowledgements k WHERE k.subject_type = '` + kind + `' AND k.subject_id = ` + id + ` AND k.expiry = ` + expiry + `)`
}

func (d *DB) expiring(ctx context.Context, before time.Time, limit int, skipAcknowledged bool) (Expiring, error) {
	out := Expiring{Before: before.UTC()}
	day := before.UTC().Format("2006-01-02")
	// Three reads, not one transaction: each list is consistent in itself.
	var err error
	out.Certificates, err = queryList(ctx, d.db, func(row rowScanner) (ExpiringCertificate, error) {
		var c ExpiringCertificate
		var na string
		err := row.Scan(&c.Kid, &c.OrganisationID, &c.OrganisationName, &c.CertificateType, &c.SubjectDN, &na)
		c.NotAfter = parseStamp(na)
		return c, err
	}, `SELECT c.kid, c.organisation_id, o.name, c.certificate_type, c.subject_dn, c.not_after
		FROM organisation_certificates c JOIN organisations o ON o.organisation_id = c.organisation_id
		WHERE c.status = 'Active' AND c.not_after < ? AND o.status <> 'Withdrawn'`+notAcknowledged(skipAcknowledged, "Certificate", "c.kid", "c.not_after")+`
		ORDER BY c.not_after, c.kid LIMIT ?`, before.UTC().Format(fixedStamp), limit+1)
	if err != nil {
		return Expiring{}, err
	}
	out.Documents, err = queryList(ctx, d.db, func(row rowScanner) (ExpiringDocument, error) {
		var x ExpiringDocument
		err := row.Scan(&x.DocumentID, &x.OrganisationID, &x.OrganisationName, &x.DocumentType, &x.DocumentReferenceNumber, &x.DocumentExpiryDate)
		return x, err
	}, `SELECT d.document_id, d.organisation_id, o.name, d.document_type, d.reference_number, d.expiry_date
		FROM documents d JOIN organisations o ON o.organisation_id = d.organisation_id
		WHERE d.expiry_date <> '' AND d.expiry_date < ? AND d.status = 'Active' AND o.status <> 'Withdrawn'`+notAcknowledged(skipAcknowledged, "Document", "d.document_id", "d.expiry_date")+`
		ORDER BY d.expiry_date, d.document_id LIMIT ?`, day, limit+1)
	if err != nil {
		return Expiring{}, err
	}
	out.Certifications, err = queryList(ctx, d.db, func(row rowScanner) (ExpiringCertification, error) {
		var x ExpiringCertification
		err := row.Scan(&x.CertificationID, &x.OrganisationID, &x.OrganisationName, &x.SubjectType, &x.SubjectID, &x.SubjectName,
			&x.CertificationType, &x.CertificationExpirationDate)
		return x, err
	}, `SELECT c.certification_id, c.organisation_id, o.name, c.subject_type, c.subject_id,
			COALESCE(s.client_name, a.customer_friendly_name, ''), c.certification_type, c.expiration_date
		FROM certifications c JOIN organisations o ON o.organisation_id = c.organisation_id
		LEFT JOIN software_statements s ON c.subject_type = 'SoftwareStatement' AND s.software_statement_id = c.subject_id
		LEFT JOIN authorisation_servers a ON c.subject_type = 'AuthorisationServer' AND a.authorisation_server_id = c.subject_id
		WHERE c.status = 'Active' AND c.expiration_date <> '' AND c.expiration_date < ? AND o.status <> 'Withdrawn'`+notAcknowledged(skipAcknowledged, "Certification", "c.certification_id", "c.expiration_date")+`
		ORDER BY c.expiration_date, c.certification_id LIMIT ?`, day, limit+1)
	if err != nil {
		return Expiring{}, err
	}
	if len(out.Certificates) > limit {
		out.Certificates, out.Truncated = out.Certificates[:limit], true
	}
	if len(out.Documents) > limit {
		out.Documents, out.Truncated = out.Documents[:limit], true
	}
	if len(out.Certifications) > limit {
		out.Certifications, out.Truncated = out.Certifications[:limit], true
	}
	return out, nil
}

// Readiness is the onboarding checklist's counts (directory.Readiness).
type Readiness = directory.Readiness

// OrganisationReadiness counts, for one organisation, what the onboarding
// checklist looks at.
func (d *DB) OrganisationReadiness(ctx context.Context, orgID string, now time.Time) (Readiness, error) {
	var r Readiness
	day := now.UTC().Format("2006-01-02")
	err := d.db.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM contacts WHERE organisation_id = ?1),
		(SELECT COUNT(*) FROM documents WHERE organisation_id = ?1 AND status = 'Active' AND (expiry_date = '' OR expiry_date >= ?2)),
		(SELECT COUNT(*) FROM organisation_certificates WHERE organisation_id = ?1 AND status = 'Active' AND not_after > ?3),
		(SELECT COUNT(*) FROM authorisation_servers WHERE organisation_id = ?1 AND status <> 'Withdrawn'),
		(SELECT COUNT(*) FROM software_statements WHERE organisation_id = ?1 AND status <> 'Withdrawn')`,
		orgID, day, now.UTC().Format(fixedStamp)).Scan(&r.Contacts, &r.DocumentsInDate, &r.CertificatesInDate, &r.Servers, &r.Applications)
	return r, err
}
