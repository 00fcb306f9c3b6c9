-- Authorisation domains, their roles, the authorities that authorise
-- organisations for them, and organisations' authority claims
-- (docs/design.md, "Authorisation domains, roles and authority claims").
CREATE TABLE authorisation_domains (
    name        TEXT PRIMARY KEY,
    description TEXT NOT NULL DEFAULT '',
    status      TEXT NOT NULL CHECK (status IN ('Active','Inactive')),
    created_on  TEXT NOT NULL,
    updated_on  TEXT NOT NULL
);

CREATE TABLE authorisation_domain_roles (
    domain      TEXT NOT NULL REFERENCES authorisation_domains(name),
    name        TEXT NOT NULL,
    type        TEXT NOT NULL CHECK (type IN ('Federation','Directory')),
    exclusive   INTEGER NOT NULL DEFAULT 0 CHECK (exclusive IN (0,1)),
    description TEXT NOT NULL DEFAULT '',
    status      TEXT NOT NULL CHECK (status IN ('Active','Inactive')),
    created_on  TEXT NOT NULL,
    updated_on  TEXT NOT NULL,
    PRIMARY KEY (domain, name)
);

CREATE TABLE authorities (
    authority_id TEXT PRIMARY KEY,
    name         TEXT NOT NULL UNIQUE,
    code         TEXT NOT NULL UNIQUE,
    country      TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('Active','Inactive')),
    created_on   TEXT NOT NULL,
    updated_on   TEXT NOT NULL
);

CREATE TABLE authority_domains (
    authority_id TEXT NOT NULL REFERENCES authorities(authority_id),
    domain       TEXT NOT NULL REFERENCES authorisation_domains(name),
    PRIMARY KEY (authority_id, domain)
);
CREATE INDEX authority_domains_domain ON authority_domains(domain, authority_id);

-- Claims are never deleted (Status Inactive instead), so the foreign keys
-- keep what a claim names from being deleted under it.
CREATE TABLE organisation_authority_claims (
    claim_id        TEXT PRIMARY KEY,
    organisation_id TEXT NOT NULL REFERENCES organisations(organisation_id),
    authority_id    TEXT NOT NULL REFERENCES authorities(authority_id),
    domain          TEXT NOT NULL,
    role            TEXT NOT NULL,
    registration_id TEXT NOT NULL DEFAULT '',
    status          TEXT NOT NULL CHECK (status IN ('Active','Inactive')),
    created_on      TEXT NOT NULL,
    updated_on      TEXT NOT NULL,
    FOREIGN KEY (domain, role) REFERENCES authorisation_domain_roles(domain, name)
);
CREATE INDEX claims_organisation ON organisation_authority_claims(organisation_id, status);
CREATE INDEX claims_role ON organisation_authority_claims(domain, role, status, organisation_id);
CREATE INDEX claims_role_name ON organisation_authority_claims(role, status, organisation_id);
CREATE INDEX claims_authority ON organisation_authority_claims(authority_id, status);
-- One Active claim per organisation, domain and role.
CREATE UNIQUE INDEX claims_active_once ON organisation_authority_claims(organisation_id, domain, role) WHERE status = 'Active';

-- Role metadata policies name a domain as well as a role; policies saved
-- before domains existed keep an empty domain and are flagged until edited.
CREATE TABLE role_metadata_policies_new (
    policy_id            TEXT PRIMARY KEY,
    authorisation_domain TEXT NOT NULL DEFAULT '',
    role                 TEXT NOT NULL,
    entity_type          TEXT NOT NULL,
    policy               TEXT NOT NULL,
    description          TEXT NOT NULL DEFAULT '',
    status               TEXT NOT NULL CHECK (status IN ('Active','Inactive')),
    created_on           TEXT NOT NULL,
    updated_on           TEXT NOT NULL,
    UNIQUE (authorisation_domain, role, entity_type)
);
INSERT INTO role_metadata_policies_new(policy_id, role, entity_type, policy, description, status, created_on, updated_on)
    SELECT policy_id, role, entity_type, policy, description, status, created_on, updated_on FROM role_metadata_policies;
DROP TABLE role_metadata_policies;
ALTER TABLE role_metadata_policies_new RENAME TO role_metadata_policies;
