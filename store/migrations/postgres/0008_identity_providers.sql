-- Identity providers: OpenID Providers bound to the directory whose access
-- tokens the API accepts besides those of the sign-in issuer.
CREATE TABLE identity_providers (
    name         TEXT COLLATE "C" PRIMARY KEY,
    issuer       TEXT COLLATE "C" NOT NULL UNIQUE,
    jwks_uri     TEXT COLLATE "C" NOT NULL,
    audience     TEXT COLLATE "C" NOT NULL DEFAULT '',
    email_claim  TEXT COLLATE "C" NOT NULL DEFAULT 'email',
    description  TEXT COLLATE "C" NOT NULL DEFAULT '',
    status       TEXT COLLATE "C" NOT NULL CHECK (status IN ('Active','Inactive')),
    created_on   TEXT COLLATE "C" NOT NULL,
    updated_on   TEXT COLLATE "C" NOT NULL
);
