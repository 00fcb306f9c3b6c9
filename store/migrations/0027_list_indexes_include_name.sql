-- PostgreSQL's organisation list indexes now hold name as well
-- (migrations/postgres/0027), so a page's ids come from the index alone
-- there as they do here: this engine's indexes on name COLLATE NOCASE
-- already cover those reads. Nothing changes here.
SELECT 1;
