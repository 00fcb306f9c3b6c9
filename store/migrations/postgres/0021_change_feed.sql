-- The change feed (docs/design.md §15) reads the audit log itself; what it
-- needs of its own is the identity of this log, so that a cursor made by
-- another database (a restored copy, another deployment) is recognised
-- and answered 410 instead of silently skipping or repeating changes.
-- The epoch is written by the store on first use (random, 128 bits).
CREATE TABLE change_feed (
    name   TEXT COLLATE "C" PRIMARY KEY,
    value  TEXT COLLATE "C" NOT NULL
);
