-- Trust marks (docs/design.md §17): the types Super Users define, every
-- mark issued (so that its status is exact), and which retired federation
-- keys an emergency rotation replaced (historical keys say "revoked").
CREATE TABLE trust_mark_types (
    id                   TEXT COLLATE "C" PRIMARY KEY,
    trust_mark_type      TEXT COLLATE "C" NOT NULL UNIQUE,
    name                 TEXT COLLATE "C" NOT NULL,
    description          TEXT COLLATE "C" NOT NULL DEFAULT '',
    basis                TEXT COLLATE "C" NOT NULL CHECK (basis IN ('Role','Certification')),
    authorisation_domain TEXT COLLATE "C" NOT NULL DEFAULT '',
    role                 TEXT COLLATE "C" NOT NULL DEFAULT '',
    certification_type   TEXT COLLATE "C" NOT NULL DEFAULT '',
    lifetime             TEXT COLLATE "C" NOT NULL DEFAULT '24h',
    logo_uri             TEXT COLLATE "C" NOT NULL DEFAULT '',
    ref                  TEXT COLLATE "C" NOT NULL DEFAULT '',
    status               TEXT COLLATE "C" NOT NULL CHECK (status IN ('Active','Inactive')),
    created_on           TEXT COLLATE "C" NOT NULL,
    updated_on           TEXT COLLATE "C" NOT NULL
);

CREATE TABLE trust_marks (
    jti           TEXT COLLATE "C" PRIMARY KEY,
    type_id       TEXT COLLATE "C" NOT NULL REFERENCES trust_mark_types(id),
    sub           TEXT COLLATE "C" NOT NULL,
    iat           TEXT COLLATE "C" NOT NULL,
    exp           TEXT COLLATE "C" NOT NULL,
    jwt           TEXT COLLATE "C" NOT NULL,
    revoked_at    TEXT COLLATE "C",
    revoke_reason TEXT COLLATE "C" NOT NULL DEFAULT ''
);
CREATE INDEX trust_marks_subject ON trust_marks(type_id, sub, iat);
CREATE INDEX trust_marks_live ON trust_marks(sub) WHERE revoked_at IS NULL;

ALTER TABLE federation_keys ADD COLUMN compromised INTEGER NOT NULL DEFAULT 0;
