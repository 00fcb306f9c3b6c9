-- The development identity provider's authorization codes, each with the
-- PKCE and OpenID Connect requests made with it, so that a code made by
-- one instance is exchanged at another (docs/design.md §14). signature is
-- the code's HMAC signature (never the code); kind is code, pkce or oidc;
-- data is the request fosite needs back, as JSON. A used code is kept
-- inactive until it expires, so that a reuse is recognised.
CREATE TABLE dev_idp_codes (
	signature TEXT NOT NULL,
	kind      TEXT NOT NULL,
	data      BLOB NOT NULL,
	active    INTEGER NOT NULL DEFAULT 1,
	expires   TEXT NOT NULL,
	PRIMARY KEY (signature, kind)
);
CREATE INDEX dev_idp_codes_expires ON dev_idp_codes(expires);
