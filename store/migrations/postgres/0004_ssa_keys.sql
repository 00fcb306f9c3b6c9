-- SSA signing keys. Private keys are stored encrypted (AES-GCM) under the
-- key-encryption key, which never enters the database; kek_check holds a
-- known value under it to tell a wrong KEK from damage.
CREATE TABLE ssa_keys (
    kid          TEXT COLLATE "C" PRIMARY KEY,
    alg          TEXT COLLATE "C" NOT NULL CHECK (alg IN ('PS256','ML-DSA-44','ML-DSA-65','ML-DSA-87')),
    status       TEXT COLLATE "C" NOT NULL CHECK (status IN ('Active','Retired')),
    created_at   TEXT COLLATE "C" NOT NULL,
    retired_at   TEXT COLLATE "C",
    public_jwk   TEXT COLLATE "C" NOT NULL,
    private_enc  BYTEA NOT NULL
);
CREATE INDEX ssa_keys_alg ON ssa_keys(alg, status, created_at);

CREATE TABLE kek_check (
    id        BIGINT PRIMARY KEY CHECK (id = 1),
    check_enc BYTEA NOT NULL
);
