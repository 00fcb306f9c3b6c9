-- The audit page's Action and Subject type filter lists (docs/design.md
-- §9): every (subject type, action) pair the audit log holds, a few
-- hundred rows at most however long the log grows, so the lists are read
-- from here instead of a DISTINCT over millions of records
-- (docs/benchmarks.md, "Audit filter lists"). An AFTER INSERT trigger
-- keeps it, in the transaction that writes the record, whatever path
-- wrote it; a pair already seen costs one lookup in this small table and
-- writes nothing. No index is added to audit_log (its inserts are on the
-- SSA issuance path). The trigger comes before the fill, in this one
-- transaction: no record is written between them. store/copy.go copies
-- this table before audit_log (by name), whose trigger then finds every
-- pair present.
CREATE TABLE audit_actions (
    subject_type  TEXT NOT NULL,
    action        TEXT NOT NULL,
    PRIMARY KEY (subject_type, action)
) WITHOUT ROWID;

CREATE TRIGGER audit_log_actions AFTER INSERT ON audit_log
BEGIN
    INSERT OR IGNORE INTO audit_actions (subject_type, action) VALUES (NEW.subject_type, NEW.action);
END;

INSERT OR IGNORE INTO audit_actions (subject_type, action)
SELECT DISTINCT subject_type, action FROM audit_log;
