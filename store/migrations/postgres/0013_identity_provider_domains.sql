-- Which e-mail domains an identity provider may vouch for: "*" (any) or a
-- comma-separated list. A provider must not sign in administrators of
-- domains it does not own.
ALTER TABLE identity_providers ADD COLUMN email_domains TEXT COLLATE "C" NOT NULL DEFAULT '*';
