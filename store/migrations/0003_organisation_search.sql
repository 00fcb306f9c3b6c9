-- Search on organisation names and registration numbers: a full-text index
-- of their words (case and accents folded), queried by word prefixes, kept
-- in step with the table by triggers.
CREATE VIRTUAL TABLE organisations_fts USING fts5(
    name, registration_number,
    content='organisations', content_rowid='rowid',
    tokenize='unicode61 remove_diacritics 2', prefix='2 3'
);
INSERT INTO organisations_fts(rowid, name, registration_number) SELECT rowid, name, registration_number FROM organisations;

CREATE TRIGGER organisations_fts_insert AFTER INSERT ON organisations BEGIN
    INSERT INTO organisations_fts(rowid, name, registration_number) VALUES (new.rowid, new.name, new.registration_number);
END;
CREATE TRIGGER organisations_fts_delete AFTER DELETE ON organisations BEGIN
    INSERT INTO organisations_fts(organisations_fts, rowid, name, registration_number) VALUES ('delete', old.rowid, old.name, old.registration_number);
END;
CREATE TRIGGER organisations_fts_update AFTER UPDATE OF name, registration_number ON organisations BEGIN
    INSERT INTO organisations_fts(organisations_fts, rowid, name, registration_number) VALUES ('delete', old.rowid, old.name, old.registration_number);
    INSERT INTO organisations_fts(rowid, name, registration_number) VALUES (new.rowid, new.name, new.registration_number);
END;
