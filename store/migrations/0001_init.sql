-- Administrators, sessions, audit log and the development outbox.
CREATE TABLE super_users (
    email       TEXT PRIMARY KEY,
    status      TEXT NOT NULL CHECK (status IN ('Active','Inactive')),
    created_at  TEXT NOT NULL,
    created_by  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

CREATE TABLE data_administrators (
    email         TEXT PRIMARY KEY,
    status        TEXT NOT NULL CHECK (status IN ('Invited','Active','Inactive')),
    invited_by    TEXT NOT NULL,
    invited_at    TEXT NOT NULL,
    activated_at  TEXT,
    updated_at    TEXT NOT NULL
);

CREATE TABLE sessions (
    token   TEXT PRIMARY KEY,
    data    BLOB NOT NULL,
    expiry  REAL NOT NULL
);
CREATE INDEX sessions_expiry ON sessions(expiry);

CREATE TABLE audit_log (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    at                TEXT NOT NULL,
    actor             TEXT NOT NULL,
    action            TEXT NOT NULL,
    subject_type      TEXT NOT NULL,
    subject_id        TEXT NOT NULL,
    organisation_id   TEXT NOT NULL DEFAULT '',
    key_id            TEXT NOT NULL DEFAULT '',
    certificate_type  TEXT NOT NULL DEFAULT '',
    summary           TEXT NOT NULL DEFAULT ''
);
CREATE INDEX audit_subject ON audit_log(subject_type, subject_id);
CREATE INDEX audit_org ON audit_log(organisation_id);

-- The audit log is append-only: the database refuses to change or remove a record.
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;

CREATE TABLE outbox (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    at          TEXT NOT NULL,
    recipient   TEXT NOT NULL,
    subject     TEXT NOT NULL,
    body        TEXT NOT NULL,
    delivered   INTEGER NOT NULL DEFAULT 0
);
