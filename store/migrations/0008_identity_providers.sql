-- Identity providers: OpenID Providers bound to the directory whose access
-- tokens the API accepts besides those of the sign-in issuer.
CREATE TABLE identity_providers (
    name         TEXT PRIMARY KEY,
    issuer       TEXT NOT NULL UNIQUE,
    jwks_uri     TEXT NOT NULL,
    audience     TEXT NOT NULL DEFAULT '',
    email_claim  TEXT NOT NULL DEFAULT 'email',
    description  TEXT NOT NULL DEFAULT '',
    status       TEXT NOT NULL CHECK (status IN ('Active','Inactive')),
    created_on   TEXT NOT NULL,
    updated_on   TEXT NOT NULL
);
