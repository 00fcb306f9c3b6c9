-- The directory as its participants' federation trust anchor
-- (docs/design.md §13): its own signing keys, sealed under the KEK like the
-- SSA keys, and the federation entity IDs of applications and servers.
CREATE TABLE federation_keys (
    kid          TEXT COLLATE "C" PRIMARY KEY,
    alg          TEXT COLLATE "C" NOT NULL,
    status       TEXT COLLATE "C" NOT NULL CHECK (status IN ('Active','Retired')),
    created_at   TEXT COLLATE "C" NOT NULL,
    retired_at   TEXT COLLATE "C",
    public_jwk   TEXT COLLATE "C" NOT NULL,
    private_enc  BYTEA NOT NULL
);
CREATE INDEX federation_keys_current ON federation_keys(status, created_at);

ALTER TABLE software_statements ADD COLUMN federation_entity_id TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE authorisation_servers ADD COLUMN federation_entity_id TEXT COLLATE "C" NOT NULL DEFAULT '';
CREATE UNIQUE INDEX software_statements_federation_entity_id ON software_statements(federation_entity_id) WHERE federation_entity_id <> '';
CREATE UNIQUE INDEX authorisation_servers_federation_entity_id ON authorisation_servers(federation_entity_id) WHERE federation_entity_id <> '';
