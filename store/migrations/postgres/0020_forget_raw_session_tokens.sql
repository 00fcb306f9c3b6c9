-- Session tokens are now stored as their SHA-256 (store/sessions.go). Rows
-- written before that hold the raw token, which no cookie matches any more
-- and which a copy of the database would reveal: forget them at the
-- upgrade (everyone signed in then signs in again once).
DELETE FROM sessions;
