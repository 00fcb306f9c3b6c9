-- The directory: reference data, organisations, contacts, authorisation
-- servers, applications (software statements) and their flags.
CREATE TABLE contact_types (
    name        TEXT COLLATE "C" PRIMARY KEY,
    description TEXT COLLATE "C" NOT NULL DEFAULT '',
    status      TEXT COLLATE "C" NOT NULL CHECK (status IN ('Active','Inactive'))
);
INSERT INTO contact_types(name, description, status) VALUES
    ('Business', 'Business contact', 'Active'),
    ('Technical', 'Technical contact', 'Active'),
    ('Billing', 'Billing contact', 'Active'),
    ('Incident', 'Incident response contact', 'Active'),
    ('Security', 'Security contact', 'Active');

CREATE TABLE flags (
    flag_id     TEXT COLLATE "C" PRIMARY KEY,
    name        TEXT COLLATE "C" NOT NULL,
    description TEXT COLLATE "C" NOT NULL DEFAULT '',
    type        TEXT COLLATE "C" NOT NULL CHECK (type IN ('Organisation','Software_Statement','Authorisation_Server')),
    status      TEXT COLLATE "C" NOT NULL CHECK (status IN ('Active','Inactive')),
    UNIQUE (type, name)
);

CREATE TABLE organisations (
    organisation_id         TEXT COLLATE "C" PRIMARY KEY,
    name                    TEXT COLLATE "C" NOT NULL,
    legal_entity_name       TEXT COLLATE "C" NOT NULL DEFAULT '',
    registration_number     TEXT COLLATE "C" NOT NULL,
    country                 TEXT COLLATE "C" NOT NULL,
    address_line1           TEXT COLLATE "C" NOT NULL DEFAULT '',
    address_line2           TEXT COLLATE "C" NOT NULL DEFAULT '',
    city                    TEXT COLLATE "C" NOT NULL DEFAULT '',
    postcode                TEXT COLLATE "C" NOT NULL DEFAULT '',
    status                  TEXT COLLATE "C" NOT NULL CHECK (status IN ('Active','Pending','Withdrawn')),
    created_on              TEXT COLLATE "C" NOT NULL,
    updated_on              TEXT COLLATE "C" NOT NULL
);
CREATE INDEX organisations_name ON organisations(lower(name), organisation_id);
CREATE INDEX organisations_regno ON organisations(registration_number, organisation_id);
CREATE INDEX organisations_country ON organisations(country, organisation_id);
CREATE INDEX organisations_status ON organisations(status, lower(name), organisation_id);
CREATE INDEX organisations_created ON organisations(created_on, organisation_id);

CREATE TABLE organisation_flags (
    organisation_id TEXT COLLATE "C" NOT NULL REFERENCES organisations(organisation_id),
    flag_id         TEXT COLLATE "C" NOT NULL REFERENCES flags(flag_id),
    PRIMARY KEY (organisation_id, flag_id)
);
CREATE INDEX organisation_flags_flag ON organisation_flags(flag_id, organisation_id);

CREATE TABLE contacts (
    contact_id      TEXT COLLATE "C" PRIMARY KEY,
    organisation_id TEXT COLLATE "C" NOT NULL REFERENCES organisations(organisation_id),
    contact_type    TEXT COLLATE "C" NOT NULL REFERENCES contact_types(name),
    first_name      TEXT COLLATE "C" NOT NULL DEFAULT '',
    last_name       TEXT COLLATE "C" NOT NULL DEFAULT '',
    department      TEXT COLLATE "C" NOT NULL DEFAULT '',
    email_address   TEXT COLLATE "C" NOT NULL,
    phone_number    TEXT COLLATE "C" NOT NULL DEFAULT '',
    created_on      TEXT COLLATE "C" NOT NULL,
    updated_on      TEXT COLLATE "C" NOT NULL
);
CREATE INDEX contacts_org ON contacts(organisation_id);
CREATE INDEX contacts_type ON contacts(contact_type);

CREATE TABLE authorisation_servers (
    authorisation_server_id    TEXT COLLATE "C" PRIMARY KEY,
    organisation_id            TEXT COLLATE "C" NOT NULL REFERENCES organisations(organisation_id),
    customer_friendly_name     TEXT COLLATE "C" NOT NULL,
    description                TEXT COLLATE "C" NOT NULL DEFAULT '',
    issuer                     TEXT COLLATE "C" NOT NULL UNIQUE,
    openid_discovery_document  TEXT COLLATE "C" NOT NULL,
    status                     TEXT COLLATE "C" NOT NULL CHECK (status IN ('Active','Withdrawn')),
    created_on                 TEXT COLLATE "C" NOT NULL,
    updated_on                 TEXT COLLATE "C" NOT NULL
);
CREATE INDEX authorisation_servers_org ON authorisation_servers(organisation_id);

CREATE TABLE authorisation_server_flags (
    authorisation_server_id TEXT COLLATE "C" NOT NULL REFERENCES authorisation_servers(authorisation_server_id),
    flag_id                 TEXT COLLATE "C" NOT NULL REFERENCES flags(flag_id),
    PRIMARY KEY (authorisation_server_id, flag_id)
);

CREATE TABLE software_statements (
    software_statement_id      TEXT COLLATE "C" PRIMARY KEY,
    organisation_id            TEXT COLLATE "C" NOT NULL REFERENCES organisations(organisation_id),
    client_id                  TEXT COLLATE "C" NOT NULL UNIQUE,
    client_name                TEXT COLLATE "C" NOT NULL,
    description                TEXT COLLATE "C" NOT NULL DEFAULT '',
    version                    TEXT COLLATE "C" NOT NULL DEFAULT '1',
    redirect_uris              TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    roles                      TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    jwks_uri                   TEXT COLLATE "C" NOT NULL DEFAULT '',
    status                     TEXT COLLATE "C" NOT NULL CHECK (status IN ('Active','Suspended','Withdrawn')),
    ciba_delivery_mode         TEXT COLLATE "C" NOT NULL DEFAULT '',
    ciba_notification_endpoint TEXT COLLATE "C" NOT NULL DEFAULT '',
    origins                    TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    created_on                 TEXT COLLATE "C" NOT NULL,
    updated_on                 TEXT COLLATE "C" NOT NULL
);
CREATE INDEX software_statements_org ON software_statements(organisation_id);

CREATE TABLE software_statement_flags (
    software_statement_id TEXT COLLATE "C" NOT NULL REFERENCES software_statements(software_statement_id),
    flag_id               TEXT COLLATE "C" NOT NULL REFERENCES flags(flag_id),
    PRIMARY KEY (software_statement_id, flag_id)
);
