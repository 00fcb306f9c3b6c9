-- A staged rollover of the federation signing key (docs/design.md §13):
-- a key may be published as the Next key before it signs, so relying
-- parties that hold the anchor's keys configured can add it first. At
-- most one Next key. The column's CHECK constraint has PostgreSQL's
-- default name (table_column_check).
ALTER TABLE federation_keys DROP CONSTRAINT federation_keys_status_check;
ALTER TABLE federation_keys ADD CONSTRAINT federation_keys_status_check CHECK (status IN ('Next','Active','Retired'));
CREATE UNIQUE INDEX federation_keys_one_next ON federation_keys(status) WHERE status = 'Next';
