-- Role metadata policies: an OpenID Federation metadata_policy for one entity
-- type, applied to an authorisation domain role.
CREATE TABLE role_metadata_policies (
    policy_id    TEXT COLLATE "C" PRIMARY KEY,
    role         TEXT COLLATE "C" NOT NULL,
    entity_type  TEXT COLLATE "C" NOT NULL,
    policy       TEXT COLLATE "C" NOT NULL,
    description  TEXT COLLATE "C" NOT NULL DEFAULT '',
    status       TEXT COLLATE "C" NOT NULL CHECK (status IN ('Active','Inactive')),
    created_on   TEXT COLLATE "C" NOT NULL,
    updated_on   TEXT COLLATE "C" NOT NULL,
    UNIQUE (role, entity_type)
);
