-- The header search finds applications, authorisation servers and
-- contacts by name (issue 40), as organisations are found (migration
-- 0003): every word of the name (an issuer's, an e-mail address's), case
-- and accents folded, queried by word prefixes. Certificates and key
-- material are found by kid prefix: key_material's kid gets an index of
-- its own (its unique index leads with the organisation).
CREATE VIRTUAL TABLE software_statements_fts USING fts5(
    client_name,
    content='software_statements', content_rowid='rowid',
    tokenize='unicode61 remove_diacritics 2', prefix='2 3'
);
INSERT INTO software_statements_fts(rowid, client_name) SELECT rowid, client_name FROM software_statements;
CREATE TRIGGER software_statements_fts_insert AFTER INSERT ON software_statements BEGIN
    INSERT INTO software_statements_fts(rowid, client_name) VALUES (new.rowid, new.client_name);
END;
CREATE TRIGGER software_statements_fts_delete AFTER DELETE ON software_statements BEGIN
    INSERT INTO software_statements_fts(software_statements_fts, rowid, client_name) VALUES ('delete', old.rowid, old.client_name);
END;
CREATE TRIGGER software_statements_fts_update AFTER UPDATE OF client_name ON software_statements BEGIN
    INSERT INTO software_statements_fts(software_statements_fts, rowid, client_name) VALUES ('delete', old.rowid, old.client_name);
    INSERT INTO software_statements_fts(rowid, client_name) VALUES (new.rowid, new.client_name);
END;

CREATE VIRTUAL TABLE authorisation_servers_fts USING fts5(
    customer_friendly_name, issuer,
    content='authorisation_servers', content_rowid='rowid',
    tokenize='unicode61 remove_diacritics 2', prefix='2 3'
);
INSERT INTO authorisation_servers_fts(rowid, customer_friendly_name, issuer) SELECT rowid, customer_friendly_name, issuer FROM authorisation_servers;
CREATE TRIGGER authorisation_servers_fts_insert AFTER INSERT ON authorisation_servers BEGIN
    INSERT INTO authorisation_servers_fts(rowid, customer_friendly_name, issuer) VALUES (new.rowid, new.customer_friendly_name, new.issuer);
END;
CREATE TRIGGER authorisation_servers_fts_delete AFTER DELETE ON authorisation_servers BEGIN
    INSERT INTO authorisation_servers_fts(authorisation_servers_fts, rowid, customer_friendly_name, issuer) VALUES ('delete', old.rowid, old.customer_friendly_name, old.issuer);
END;
CREATE TRIGGER authorisation_servers_fts_update AFTER UPDATE OF customer_friendly_name, issuer ON authorisation_servers BEGIN
    INSERT INTO authorisation_servers_fts(authorisation_servers_fts, rowid, customer_friendly_name, issuer) VALUES ('delete', old.rowid, old.customer_friendly_name, old.issuer);
    INSERT INTO authorisation_servers_fts(rowid, customer_friendly_name, issuer) VALUES (new.rowid, new.customer_friendly_name, new.issuer);
END;

CREATE VIRTUAL TABLE contacts_fts USING fts5(
    first_name, last_name, email_address,
    content='contacts', content_rowid='rowid',
    tokenize='unicode61 remove_diacritics 2', prefix='2 3'
);
INSERT INTO contacts_fts(rowid, first_name, last_name, email_address) SELECT rowid, first_name, last_name, email_address FROM contacts;
CREATE TRIGGER contacts_fts_insert AFTER INSERT ON contacts BEGIN
    INSERT INTO contacts_fts(rowid, first_name, last_name, email_address) VALUES (new.rowid, new.first_name, new.last_name, new.email_address);
END;
CREATE TRIGGER contacts_fts_delete AFTER DELETE ON contacts BEGIN
    INSERT INTO contacts_fts(contacts_fts, rowid, first_name, last_name, email_address) VALUES ('delete', old.rowid, old.first_name, old.last_name, old.email_address);
END;
CREATE TRIGGER contacts_fts_update AFTER UPDATE OF first_name, last_name, email_address ON contacts BEGIN
    INSERT INTO contacts_fts(contacts_fts, rowid, first_name, last_name, email_address) VALUES ('delete', old.rowid, old.first_name, old.last_name, old.email_address);
    INSERT INTO contacts_fts(rowid, first_name, last_name, email_address) VALUES (new.rowid, new.first_name, new.last_name, new.email_address);
END;

CREATE INDEX key_material_kid ON key_material(kid);
