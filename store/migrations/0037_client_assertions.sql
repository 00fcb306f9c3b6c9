-- Applications calling the API for themselves (docs/design.md §20): the
-- jti of every client assertion (RFC 7523) accepted at /oauth/token, kept
-- until the assertion expires, so that one is used once on every instance
-- sharing the database; key material bound to the application whose
-- client assertions it signs.
CREATE TABLE client_assertions (
    assertion_key  TEXT PRIMARY KEY,
    expires_at     BIGINT NOT NULL
);
CREATE INDEX client_assertions_expiry ON client_assertions(expires_at);

ALTER TABLE key_material ADD COLUMN software_statement_id TEXT NOT NULL DEFAULT '';
CREATE INDEX key_material_app ON key_material(software_statement_id) WHERE software_statement_id <> '';
