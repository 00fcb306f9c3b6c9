-- The directory as its participants' federation trust anchor
-- (docs/design.md §13): its own signing keys, sealed under the KEK like the
-- SSA keys, and the federation entity IDs of applications and servers.
CREATE TABLE federation_keys (
    kid          TEXT PRIMARY KEY,
    alg          TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('Active','Retired')),
    created_at   TEXT NOT NULL,
    retired_at   TEXT,
    public_jwk   TEXT NOT NULL,
    private_enc  BLOB NOT NULL
);
CREATE INDEX federation_keys_current ON federation_keys(status, created_at);

ALTER TABLE software_statements ADD COLUMN federation_entity_id TEXT NOT NULL DEFAULT '';
ALTER TABLE authorisation_servers ADD COLUMN federation_entity_id TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX software_statements_federation_entity_id ON software_statements(federation_entity_id) WHERE federation_entity_id <> '';
CREATE UNIQUE INDEX authorisation_servers_federation_entity_id ON authorisation_servers(federation_entity_id) WHERE federation_entity_id <> '';
