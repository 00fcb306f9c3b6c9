-- The organisation list's name indexes hold name itself too (docs/design.md,
-- "Engines"; docs/benchmarks.md, issue 12). A page's ids are read from the
-- sort's index; ordered by lower(name), PostgreSQL answers from the index
-- alone (an index-only scan) only when the index also holds name, the
-- column the expression is made of. Without it each index entry read,
-- up to 500 skipped after a deep page's anchor, was a table row read.
-- SQLite's indexes on name COLLATE NOCASE already cover these reads.
DROP INDEX organisations_name;
CREATE INDEX organisations_name ON organisations(lower(name), organisation_id) INCLUDE (name);
DROP INDEX organisations_status;
CREATE INDEX organisations_status ON organisations(status, lower(name), organisation_id) INCLUDE (name);
