-- Authorisation domains, their roles, the authorities that authorise
-- organisations for them, and organisations' authority claims
-- (docs/design.md, "Authorisation domains, roles and authority claims").
CREATE TABLE authorisation_domains (
    name        TEXT COLLATE "C" PRIMARY KEY,
    description TEXT COLLATE "C" NOT NULL DEFAULT '',
    status      TEXT COLLATE "C" NOT NULL CHECK (status IN ('Active','Inactive')),
    created_on  TEXT COLLATE "C" NOT NULL,
    updated_on  TEXT COLLATE "C" NOT NULL
);

CREATE TABLE authorisation_domain_roles (
    domain      TEXT COLLATE "C" NOT NULL REFERENCES authorisation_domains(name),
    name        TEXT COLLATE "C" NOT NULL,
    type        TEXT COLLATE "C" NOT NULL CHECK (type IN ('Federation','Directory')),
    exclusive   BIGINT NOT NULL DEFAULT 0 CHECK (exclusive IN (0,1)),
    description TEXT COLLATE "C" NOT NULL DEFAULT '',
    status      TEXT COLLATE "C" NOT NULL CHECK (status IN ('Active','Inactive')),
    created_on  TEXT COLLATE "C" NOT NULL,
    updated_on  TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (domain, name)
);

CREATE TABLE authorities (
    authority_id TEXT COLLATE "C" PRIMARY KEY,
    name         TEXT COLLATE "C" NOT NULL UNIQUE,
    code         TEXT COLLATE "C" NOT NULL UNIQUE,
    country      TEXT COLLATE "C" NOT NULL,
    status       TEXT COLLATE "C" NOT NULL CHECK (status IN ('Active','Inactive')),
    created_on   TEXT COLLATE "C" NOT NULL,
    updated_on   TEXT COLLATE "C" NOT NULL
);

CREATE TABLE authority_domains (
    authority_id TEXT COLLATE "C" NOT NULL REFERENCES authorities(authority_id),
    domain       TEXT COLLATE "C" NOT NULL REFERENCES authorisation_domains(name),
    PRIMARY KEY (authority_id, domain)
);
CREATE INDEX authority_domains_domain ON authority_domains(domain, authority_id);

-- Claims are never deleted (Status Inactive instead), so the foreign keys
-- keep what a claim names from being deleted under it.
CREATE TABLE organisation_authority_claims (
    claim_id        TEXT COLLATE "C" PRIMARY KEY,
    organisation_id TEXT COLLATE "C" NOT NULL REFERENCES organisations(organisation_id),
    authority_id    TEXT COLLATE "C" NOT NULL REFERENCES authorities(authority_id),
    domain          TEXT COLLATE "C" NOT NULL,
    role            TEXT COLLATE "C" NOT NULL,
    registration_id TEXT COLLATE "C" NOT NULL DEFAULT '',
    status          TEXT COLLATE "C" NOT NULL CHECK (status IN ('Active','Inactive')),
    created_on      TEXT COLLATE "C" NOT NULL,
    updated_on      TEXT COLLATE "C" NOT NULL,
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
    policy_id            TEXT COLLATE "C" PRIMARY KEY,
    authorisation_domain TEXT COLLATE "C" NOT NULL DEFAULT '',
    role                 TEXT COLLATE "C" NOT NULL,
    entity_type          TEXT COLLATE "C" NOT NULL,
    policy               TEXT COLLATE "C" NOT NULL,
    description          TEXT COLLATE "C" NOT NULL DEFAULT '',
    status               TEXT COLLATE "C" NOT NULL CHECK (status IN ('Active','Inactive')),
    created_on           TEXT COLLATE "C" NOT NULL,
    updated_on           TEXT COLLATE "C" NOT NULL,
    UNIQUE (authorisation_domain, role, entity_type)
);
INSERT INTO role_metadata_policies_new(policy_id, role, entity_type, policy, description, status, created_on, updated_on)
    SELECT policy_id, role, entity_type, policy, description, status, created_on, updated_on FROM role_metadata_policies;
DROP TABLE role_metadata_policies;
ALTER TABLE role_metadata_policies_new RENAME TO role_metadata_policies;
