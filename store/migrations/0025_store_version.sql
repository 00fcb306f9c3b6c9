-- The number of directory writes committed, for several instances on one
-- database (docs/design.md §2.1): an instance that finds it moved since it
-- last looked drops its caches before answering, so a write on one instance
-- is seen by the next request on any other. A single SQLite process does
-- not read it.
CREATE TABLE store_version (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    n   BIGINT NOT NULL
);
INSERT INTO store_version (id, n) VALUES (1, 0);
