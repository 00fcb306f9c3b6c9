-- A staged rollover of the federation signing key (docs/design.md §13):
-- a key may be published as the Next key before it signs, so relying
-- parties that hold the anchor's keys configured can add it first. At
-- most one Next key. SQLite cannot change a CHECK constraint in place:
-- the table is made again with the same rows (as 0014 does).
CREATE TABLE federation_keys_new (
    kid          TEXT PRIMARY KEY,
    alg          TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('Next','Active','Retired')),
    created_at   TEXT NOT NULL,
    retired_at   TEXT,
    public_jwk   TEXT NOT NULL,
    private_enc  BLOB NOT NULL
);
INSERT INTO federation_keys_new(kid, alg, status, created_at, retired_at, public_jwk, private_enc)
    SELECT kid, alg, status, created_at, retired_at, public_jwk, private_enc FROM federation_keys;
DROP TABLE federation_keys;
ALTER TABLE federation_keys_new RENAME TO federation_keys;
CREATE INDEX federation_keys_current ON federation_keys(status, created_at);
CREATE UNIQUE INDEX federation_keys_one_next ON federation_keys(status) WHERE status = 'Next';
