-- PostgreSQL's organisation search now folds as this engine's FTS5 index
-- (migrations/postgres/0026): nothing changes here.
SELECT 1;
