-- The deliverer takes at most one delivery of a webhook at a time and
-- holds back a webhook whose last attempt failed until its retry is due
-- (docs/design.md §15): it looks at a webhook's Pending rows, which this
-- index finds without reading the webhook's delivered history.
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries(webhook_id, delivery_id) WHERE status = 'Pending';

-- The attempts of a delivery's current retry window: the backoff counts
-- from here, and Redeliver starts a new window (attempts keeps counting
-- every attempt for the log).
ALTER TABLE webhook_deliveries ADD COLUMN window_attempts INTEGER NOT NULL DEFAULT 0;
UPDATE webhook_deliveries SET window_attempts = attempts;
