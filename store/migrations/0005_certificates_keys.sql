-- Organisation certificates, key material and its attachments.
CREATE TABLE certificate_types (
    name        TEXT PRIMARY KEY,
    description TEXT NOT NULL DEFAULT '',
    use         TEXT NOT NULL CHECK (use IN ('sig','tls','enc')),
    status      TEXT NOT NULL CHECK (status IN ('Active','Inactive'))
);
INSERT INTO certificate_types(name, description, use, status) VALUES
    ('qwac', 'Qualified website authentication certificate (eIDAS)', 'tls', 'Active'),
    ('qseal', 'Qualified electronic seal certificate (eIDAS)', 'sig', 'Active'),
    ('rtswac', 'Directory-issued transport (WAC) certificate', 'tls', 'Active'),
    ('rtsseal', 'Directory-issued signing (seal) certificate', 'sig', 'Active'),
    ('brseal', 'Open Finance Brasil signing certificate', 'sig', 'Active'),
    ('brseal_ext', 'Open Finance Brasil extended signing certificate', 'sig', 'Active'),
    ('rtstransport_rs', 'Resource server transport certificate', 'tls', 'Active');

CREATE TABLE organisation_certificates (
    kid               TEXT PRIMARY KEY,
    organisation_id   TEXT NOT NULL REFERENCES organisations(organisation_id),
    certificate_type  TEXT NOT NULL REFERENCES certificate_types(name),
    subject_dn        TEXT NOT NULL,
    issuer_dn         TEXT NOT NULL,
    serial            TEXT NOT NULL,
    not_before        TEXT NOT NULL,
    not_after         TEXT NOT NULL,
    pem               TEXT NOT NULL,
    public_jwk        TEXT NOT NULL,
    status            TEXT NOT NULL CHECK (status IN ('Active','Revoked')),
    revoke_reason     TEXT NOT NULL DEFAULT '',
    revoked_on        TEXT,
    created_on        TEXT NOT NULL,
    created_by        TEXT NOT NULL
);
CREATE INDEX organisation_certificates_org ON organisation_certificates(organisation_id, certificate_type);

CREATE TABLE key_material (
    key_material_id  TEXT PRIMARY KEY,
    organisation_id  TEXT NOT NULL REFERENCES organisations(organisation_id),
    kid              TEXT NOT NULL,
    use              TEXT NOT NULL CHECK (use IN ('sig','enc','tls')),
    public_jwk       TEXT NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('Active','Revoked')),
    revoke_reason    TEXT NOT NULL DEFAULT '',
    description      TEXT NOT NULL DEFAULT '',
    created_on       TEXT NOT NULL,
    updated_on       TEXT NOT NULL,
    revoked_on       TEXT,
    UNIQUE (organisation_id, kid)
);

CREATE TABLE key_material_attachments (
    attachment_id    TEXT PRIMARY KEY,
    key_material_id  TEXT NOT NULL REFERENCES key_material(key_material_id),
    file_name        TEXT NOT NULL,
    content_type     TEXT NOT NULL,
    size             INTEGER NOT NULL,
    sha256           TEXT NOT NULL,
    description      TEXT NOT NULL DEFAULT '',
    content          BLOB NOT NULL,
    created_on       TEXT NOT NULL,
    updated_on       TEXT NOT NULL
);
CREATE INDEX key_material_attachments_km ON key_material_attachments(key_material_id);
