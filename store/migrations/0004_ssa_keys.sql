-- SSA signing keys. Private keys are stored encrypted (AES-GCM) under the
-- key-encryption key, which never enters the database; kek_check holds a
-- known value under it to tell a wrong KEK from damage.
CREATE TABLE ssa_keys (
    kid          TEXT PRIMARY KEY,
    alg          TEXT NOT NULL CHECK (alg IN ('PS256','ML-DSA-44','ML-DSA-65','ML-DSA-87')),
    status       TEXT NOT NULL CHECK (status IN ('Active','Retired')),
    created_at   TEXT NOT NULL,
    retired_at   TEXT,
    public_jwk   TEXT NOT NULL,
    private_enc  BLOB NOT NULL
);
CREATE INDEX ssa_keys_alg ON ssa_keys(alg, status, created_at);

CREATE TABLE kek_check (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    check_enc BLOB NOT NULL
);
