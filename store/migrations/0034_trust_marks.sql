-- Trust marks (docs/design.md §17): the types Super Users define, every
-- mark issued (so that its status is exact), and which retired federation
-- keys an emergency rotation replaced (historical keys say "revoked").
CREATE TABLE trust_mark_types (
    id                   TEXT PRIMARY KEY,
    trust_mark_type      TEXT NOT NULL UNIQUE,
    name                 TEXT NOT NULL,
    description          TEXT NOT NULL DEFAULT '',
    basis                TEXT NOT NULL CHECK (basis IN ('Role','Certification')),
    authorisation_domain TEXT NOT NULL DEFAULT '',
    role                 TEXT NOT NULL DEFAULT '',
    certification_type   TEXT NOT NULL DEFAULT '',
    lifetime             TEXT NOT NULL DEFAULT '24h',
    logo_uri             TEXT NOT NULL DEFAULT '',
    ref                  TEXT NOT NULL DEFAULT '',
    status               TEXT NOT NULL CHECK (status IN ('Active','Inactive')),
    created_on           TEXT NOT NULL,
    updated_on           TEXT NOT NULL
);

CREATE TABLE trust_marks (
    jti           TEXT PRIMARY KEY,
    type_id       TEXT NOT NULL REFERENCES trust_mark_types(id),
    sub           TEXT NOT NULL,
    iat           TEXT NOT NULL,
    exp           TEXT NOT NULL,
    jwt           TEXT NOT NULL,
    revoked_at    TEXT,
    revoke_reason TEXT NOT NULL DEFAULT ''
);
CREATE INDEX trust_marks_subject ON trust_marks(type_id, sub, iat);
CREATE INDEX trust_marks_live ON trust_marks(sub) WHERE revoked_at IS NULL;

ALTER TABLE federation_keys ADD COLUMN compromised INTEGER NOT NULL DEFAULT 0;
