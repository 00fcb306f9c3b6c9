-- Regulatory documents of organisations, certifications of applications and
-- authorisation servers, and their reference data types.
CREATE TABLE document_types (
    name        TEXT COLLATE "C" PRIMARY KEY,
    description TEXT COLLATE "C" NOT NULL DEFAULT '',
    status      TEXT COLLATE "C" NOT NULL CHECK (status IN ('Active','Inactive'))
);
INSERT INTO document_types(name, description, status) VALUES
    ('Licence', 'Licence or authorisation from the competent authority', 'Active'),
    ('Registration', 'Entry in the register of the competent authority', 'Active'),
    ('Passport', 'Passporting notification for another market', 'Active');

CREATE TABLE certification_types (
    name        TEXT COLLATE "C" PRIMARY KEY,
    description TEXT COLLATE "C" NOT NULL DEFAULT '',
    status      TEXT COLLATE "C" NOT NULL CHECK (status IN ('Active','Inactive'))
);
INSERT INTO certification_types(name, description, status) VALUES
    ('FAPI', 'FAPI security profile conformance', 'Active'),
    ('DCR', 'Dynamic client registration conformance', 'Active'),
    ('CIBA', 'Client-initiated backchannel authentication conformance', 'Active');

CREATE TABLE documents (
    document_id       TEXT COLLATE "C" PRIMARY KEY,
    organisation_id   TEXT COLLATE "C" NOT NULL REFERENCES organisations(organisation_id),
    document_type     TEXT COLLATE "C" NOT NULL REFERENCES document_types(name),
    description       TEXT COLLATE "C" NOT NULL DEFAULT '',
    reference_number  TEXT COLLATE "C" NOT NULL DEFAULT '',
    start_date        TEXT COLLATE "C" NOT NULL DEFAULT '',
    expiry_date       TEXT COLLATE "C" NOT NULL DEFAULT '',
    created_on        TEXT COLLATE "C" NOT NULL,
    updated_on        TEXT COLLATE "C" NOT NULL
);
CREATE INDEX documents_org ON documents(organisation_id, created_on);
CREATE INDEX documents_type ON documents(document_type);

CREATE TABLE certifications (
    certification_id    TEXT COLLATE "C" PRIMARY KEY,
    organisation_id     TEXT COLLATE "C" NOT NULL REFERENCES organisations(organisation_id),
    subject_type        TEXT COLLATE "C" NOT NULL CHECK (subject_type IN ('SoftwareStatement','AuthorisationServer')),
    subject_id          TEXT COLLATE "C" NOT NULL,
    certification_type  TEXT COLLATE "C" NOT NULL REFERENCES certification_types(name),
    start_date          TEXT COLLATE "C" NOT NULL,
    expiration_date     TEXT COLLATE "C" NOT NULL DEFAULT '',
    uri                 TEXT COLLATE "C" NOT NULL DEFAULT '',
    status              TEXT COLLATE "C" NOT NULL CHECK (status IN ('Active','Inactive')),
    created_on          TEXT COLLATE "C" NOT NULL,
    updated_on          TEXT COLLATE "C" NOT NULL
);
CREATE INDEX certifications_subject ON certifications(subject_type, subject_id);
CREATE INDEX certifications_type ON certifications(certification_type);
