-- The development identity provider's refresh token sessions, so that a
-- refresh token issued before a restart still works after it (issue 19).
-- signature is the token's HMAC signature (never the token); data is the
-- authorization request fosite needs back, as JSON.
CREATE TABLE dev_idp_refresh_tokens (
	signature  TEXT COLLATE "C" PRIMARY KEY,
	request_id TEXT COLLATE "C" NOT NULL,
	data       BYTEA NOT NULL,
	active     BIGINT NOT NULL DEFAULT 1,
	expires    TEXT COLLATE "C" NOT NULL
);
CREATE INDEX dev_idp_refresh_tokens_request ON dev_idp_refresh_tokens(request_id);
CREATE INDEX dev_idp_refresh_tokens_expires ON dev_idp_refresh_tokens(expires);
