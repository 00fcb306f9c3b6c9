-- What expires soon (the home page's "Needs attention" and GET /api/expiring).
CREATE INDEX organisation_certificates_expiry ON organisation_certificates(status, not_after);
CREATE INDEX documents_expiry ON documents(expiry_date) WHERE expiry_date <> '';
CREATE INDEX certifications_expiry ON certifications(status, expiration_date) WHERE expiration_date <> '';
