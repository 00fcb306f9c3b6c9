-- DPoP proofs already used (docs/design.md §3), for several instances on
-- one database: a proof used on one instance is refused on all. A single
-- instance on SQLite keeps them in memory instead; the table stays empty.
CREATE TABLE dpop_proofs (
    proof_key   TEXT PRIMARY KEY,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX dpop_proofs_expiry ON dpop_proofs(expires_at);
