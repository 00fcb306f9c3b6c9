-- Webhooks (docs/design.md §15): subscriptions by subject type, and an
-- outbox of deliveries written by a trigger on the audit log, so a
-- delivery row exists exactly when the change it announces committed
-- (the same transaction, whatever path wrote the audit record).
CREATE TABLE webhooks (
    webhook_id     TEXT PRIMARY KEY,
    url            TEXT NOT NULL,
    description    TEXT NOT NULL DEFAULT '',
    status         TEXT NOT NULL CHECK (status IN ('Active','Inactive','Paused')),
    secret_sealed  BLOB NOT NULL,
    paused_reason  TEXT NOT NULL DEFAULT '',
    -- unix milliseconds of the first failed attempt since the last
    -- success; 0 while the receiver answers.
    failing_since  BIGINT NOT NULL DEFAULT 0,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL
);

CREATE TABLE webhook_subject_types (
    webhook_id    TEXT NOT NULL REFERENCES webhooks(webhook_id) ON DELETE CASCADE,
    subject_type  TEXT NOT NULL,
    PRIMARY KEY (webhook_id, subject_type)
);
CREATE INDEX webhook_subject_types_type ON webhook_subject_types(subject_type);

-- One row per (change, Active webhook subscribed to its subject type).
-- Times the deliverer compares are unix milliseconds (integers sort and
-- compare the same in SQLite and PostgreSQL); the lease makes a claim
-- exclusive: a deliverer takes a row with a conditional UPDATE of
-- lease_owner/lease_until and finishes it only while it still holds it.
CREATE TABLE webhook_deliveries (
    delivery_id       INTEGER PRIMARY KEY AUTOINCREMENT,
    webhook_id        TEXT NOT NULL REFERENCES webhooks(webhook_id) ON DELETE CASCADE,
    audit_id          BIGINT NOT NULL REFERENCES audit_log(id),
    status            TEXT NOT NULL DEFAULT 'Pending' CHECK (status IN ('Pending','Delivered','Failed')),
    attempts          INTEGER NOT NULL DEFAULT 0,
    next_attempt_at   BIGINT NOT NULL DEFAULT 0,
    first_attempt_at  BIGINT NOT NULL DEFAULT 0,
    lease_owner       TEXT NOT NULL DEFAULT '',
    lease_until       BIGINT NOT NULL DEFAULT 0,
    last_status_code  INTEGER NOT NULL DEFAULT 0,
    last_error        TEXT NOT NULL DEFAULT '',
    last_duration_ms  BIGINT NOT NULL DEFAULT 0,
    last_attempt_at   TEXT NOT NULL DEFAULT '',
    created_at        TEXT NOT NULL,
    UNIQUE (webhook_id, audit_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries(webhook_id, delivery_id);

-- The outbox: every audit record (every change) queues one delivery per
-- Active webhook subscribed to its subject type. PostgreSQL: the same
-- INSERT … SELECT in a plpgsql trigger function.
CREATE TRIGGER audit_log_webhook_outbox AFTER INSERT ON audit_log
BEGIN
    INSERT INTO webhook_deliveries (webhook_id, audit_id, created_at)
    SELECT w.webhook_id, NEW.id, NEW.at FROM webhooks w
    JOIN webhook_subject_types s ON s.webhook_id = w.webhook_id
    WHERE w.status = 'Active' AND s.subject_type = NEW.subject_type;
END;
