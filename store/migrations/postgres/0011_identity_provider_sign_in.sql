-- Web sign-in through an identity provider: its OAuth client at that
-- provider. The secret is sealed with the key-encryption key.
ALTER TABLE identity_providers ADD COLUMN client_id TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE identity_providers ADD COLUMN client_secret BYTEA;
