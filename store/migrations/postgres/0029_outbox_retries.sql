-- Messages SMTP refused are sent again (docs/design.md §9): how many times
-- a message was tried, when it may be tried next (RFC 3339, '' for at
-- once) and why the last try failed. A message no SMTP server ever took
-- keeps delivered = 0 and, after a day of tries, is left for an operator
-- (the outbox page and trustframe_outbox_undelivered show it).
ALTER TABLE outbox ADD COLUMN attempts BIGINT NOT NULL DEFAULT 0;
ALTER TABLE outbox ADD COLUMN next_attempt_at TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE outbox ADD COLUMN last_error TEXT COLLATE "C" NOT NULL DEFAULT '';
CREATE INDEX outbox_undelivered ON outbox(delivered, id);
