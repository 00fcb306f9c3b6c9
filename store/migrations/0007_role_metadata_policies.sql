-- Role metadata policies: an OpenID Federation metadata_policy for one entity
-- type, applied to an authorisation domain role.
CREATE TABLE role_metadata_policies (
    policy_id    TEXT PRIMARY KEY,
    role         TEXT NOT NULL,
    entity_type  TEXT NOT NULL,
    policy       TEXT NOT NULL,
    description  TEXT NOT NULL DEFAULT '',
    status       TEXT NOT NULL CHECK (status IN ('Active','Inactive')),
    created_on   TEXT NOT NULL,
    updated_on   TEXT NOT NULL,
    UNIQUE (role, entity_type)
);
