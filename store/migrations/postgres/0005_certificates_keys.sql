-- Organisation certificates, key material and its attachments.
CREATE TABLE certificate_types (
    name        TEXT COLLATE "C" PRIMARY KEY,
    description TEXT COLLATE "C" NOT NULL DEFAULT '',
    use         TEXT COLLATE "C" NOT NULL CHECK (use IN ('sig','tls','enc')),
    status      TEXT COLLATE "C" NOT NULL CHECK (status IN ('Active','Inactive'))
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
    kid               TEXT COLLATE "C" PRIMARY KEY,
    organisation_id   TEXT COLLATE "C" NOT NULL REFERENCES organisations(organisation_id),
    certificate_type  TEXT COLLATE "C" NOT NULL REFERENCES certificate_types(name),
    subject_dn        TEXT COLLATE "C" NOT NULL,
    issuer_dn         TEXT COLLATE "C" NOT NULL,
    serial            TEXT COLLATE "C" NOT NULL,
    not_before        TEXT COLLATE "C" NOT NULL,
    not_after         TEXT COLLATE "C" NOT NULL,
    pem               TEXT COLLATE "C" NOT NULL,
    public_jwk        TEXT COLLATE "C" NOT NULL,
    status            TEXT COLLATE "C" NOT NULL CHECK (status IN ('Active','Revoked')),
    revoke_reason     TEXT COLLATE "C" NOT NULL DEFAULT '',
    revoked_on        TEXT COLLATE "C",
    created_on        TEXT COLLATE "C" NOT NULL,
    created_by        TEXT COLLATE "C" NOT NULL
);
CREATE INDEX organisation_certificates_org ON organisation_certificates(organisation_id, certificate_type);

CREATE TABLE key_material (
    key_material_id  TEXT COLLATE "C" PRIMARY KEY,
    organisation_id  TEXT COLLATE "C" NOT NULL REFERENCES organisations(organisation_id),
    kid              TEXT COLLATE "C" NOT NULL,
    use              TEXT COLLATE "C" NOT NULL CHECK (use IN ('sig','enc','tls')),
    public_jwk       TEXT COLLATE "C" NOT NULL,
    status           TEXT COLLATE "C" NOT NULL CHECK (status IN ('Active','Revoked')),
    revoke_reason    TEXT COLLATE "C" NOT NULL DEFAULT '',
    description      TEXT COLLATE "C" NOT NULL DEFAULT '',
    created_on       TEXT COLLATE "C" NOT NULL,
    updated_on       TEXT COLLATE "C" NOT NULL,
    revoked_on       TEXT COLLATE "C",
    UNIQUE (organisation_id, kid)
);

CREATE TABLE key_material_attachments (
    attachment_id    TEXT COLLATE "C" PRIMARY KEY,
    key_material_id  TEXT COLLATE "C" NOT NULL REFERENCES key_material(key_material_id),
    file_name        TEXT COLLATE "C" NOT NULL,
    content_type     TEXT COLLATE "C" NOT NULL,
    size             BIGINT NOT NULL,
    sha256           TEXT COLLATE "C" NOT NULL,
    description      TEXT COLLATE "C" NOT NULL DEFAULT '',
    content          BYTEA NOT NULL,
    created_on       TEXT COLLATE "C" NOT NULL,
    updated_on       TEXT COLLATE "C" NOT NULL
);
CREATE INDEX key_material_attachments_km ON key_material_attachments(key_material_id);
