-- The directory's certificate authority (docs/design.md §18): one CA,
-- its key sealed with the KEK; the CRL in force and its number (one
-- sequence for every instance); certificates it issued are organisation
-- certificates with the application they are for, marked issued by it.
CREATE TABLE pki_ca (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    cert_der    BLOB NOT NULL,
    sealed_key  BLOB NOT NULL,
    alg         TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    crl_number  INTEGER NOT NULL DEFAULT 0,
    crl_der     BLOB,
    crl_at      TEXT
);

ALTER TABLE organisation_certificates ADD COLUMN software_statement_id TEXT NOT NULL DEFAULT '';
ALTER TABLE organisation_certificates ADD COLUMN issued_by_ca INTEGER NOT NULL DEFAULT 0;
CREATE INDEX organisation_certificates_app ON organisation_certificates(software_statement_id) WHERE software_statement_id <> '';
CREATE INDEX organisation_certificates_ca_serial ON organisation_certificates(serial) WHERE issued_by_ca = 1;

INSERT INTO certificate_types(name, description, use, status) VALUES
    ('transport', 'Transport certificate issued by the directory (TLS client and server)', 'tls', 'Active'),
    ('signing', 'Signing certificate issued by the directory', 'sig', 'Active'),
    ('encryption', 'Encryption certificate issued by the directory (RSA)', 'enc', 'Active'),
    ('seal', 'Organisation seal certificate issued by the directory', 'sig', 'Active');
