-- The header search finds applications, authorisation servers and
-- contacts by name (issue 40), as organisations are found (migration
-- 0003): every word of the name (an issuer's, an e-mail address's), case
-- and accents folded, queried by word prefixes. Certificates and key
-- material are found by kid prefix: key_material's kid gets an index of
-- its own (its unique index leads with the organisation).
ALTER TABLE software_statements ADD COLUMN search tsvector
    GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, tf_words(client_name))) STORED;
CREATE INDEX software_statements_search ON software_statements USING GIN (search);
ALTER TABLE authorisation_servers ADD COLUMN search tsvector
    GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, tf_words(customer_friendly_name) || ' ' || tf_words(issuer))) STORED;
CREATE INDEX authorisation_servers_search ON authorisation_servers USING GIN (search);
ALTER TABLE contacts ADD COLUMN search tsvector
    GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, tf_words(first_name) || ' ' || tf_words(last_name) || ' ' || tf_words(email_address))) STORED;
CREATE INDEX contacts_search ON contacts USING GIN (search);

CREATE INDEX key_material_kid ON key_material(kid);
