-- The audit page's Action and Subject type filter lists (docs/design.md
-- §9): every (subject type, action) pair the audit log holds, a few
-- hundred rows at most however long the log grows, so the lists are read
-- from here instead of a DISTINCT over millions of records
-- (docs/benchmarks.md, "Audit filter lists"). An AFTER INSERT trigger
-- keeps it, in the transaction that writes the record, whatever path
-- wrote it; a pair already seen is found by ON CONFLICT's check of the
-- primary key and nothing is written. No index is added to audit_log (its
-- inserts are on the SSA issuance path). The trigger comes before the
-- fill: CREATE TRIGGER locks audit_log against inserts until this
-- migration commits, so the fill sees every record committed before it
-- and the trigger every one after. store/copy.go copies this table before
-- audit_log (by name), whose trigger then finds every pair present.
CREATE TABLE audit_actions (
    subject_type  TEXT COLLATE "C" NOT NULL,
    action        TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (subject_type, action)
);

CREATE FUNCTION audit_log_actions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO audit_actions (subject_type, action) VALUES (NEW.subject_type, NEW.action)
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;
CREATE TRIGGER audit_log_actions AFTER INSERT ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_actions();

INSERT INTO audit_actions (subject_type, action)
SELECT DISTINCT subject_type, action FROM audit_log
ON CONFLICT DO NOTHING;
