-- The development identity provider's signing key, sealed with the KEK, so
-- that instances on one PostgreSQL database sign and verify with the same
-- key (docs/design.md §14). One row: the first instance inserts it, the
-- others read it. SQLite keeps the key in <data-dir>/dev-idp-key.pem.
CREATE TABLE dev_idp_key (
	id         INTEGER PRIMARY KEY CHECK (id = 1),
	sealed     BLOB NOT NULL,
	created_at TEXT NOT NULL
);
