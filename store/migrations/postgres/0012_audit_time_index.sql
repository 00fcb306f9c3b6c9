-- The audit log filtered by date (From/To) and exported for a period.
CREATE INDEX audit_at ON audit_log(at);
