-- Idempotent creates (issue 13): the first result of a POST sent with an
-- Idempotency-Key, per administrator, kept 24 hours. status 0 means the
-- first request is still running.
CREATE TABLE idempotency_keys (
	actor        TEXT COLLATE "C" NOT NULL,
	key          TEXT COLLATE "C" NOT NULL,
	fingerprint  TEXT COLLATE "C" NOT NULL,
	status       BIGINT NOT NULL DEFAULT 0,
	headers      TEXT COLLATE "C" NOT NULL DEFAULT '{}',
	body         BYTEA NOT NULL DEFAULT ''::bytea,
	created_at   TEXT COLLATE "C" NOT NULL,
	PRIMARY KEY (actor, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
