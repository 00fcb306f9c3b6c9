-- Idempotent creates (issue 13): the first result of a POST sent with an
-- Idempotency-Key, per administrator, kept 24 hours. status 0 means the
-- first request is still running.
CREATE TABLE idempotency_keys (
	actor        TEXT NOT NULL,
	key          TEXT NOT NULL,
	fingerprint  TEXT NOT NULL,
	status       INTEGER NOT NULL DEFAULT 0,
	headers      TEXT NOT NULL DEFAULT '{}',
	body         BLOB NOT NULL DEFAULT x'',
	created_at   TEXT NOT NULL,
	PRIMARY KEY (actor, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
