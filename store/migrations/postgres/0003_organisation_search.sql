-- Search on organisation names and registration numbers, as SQLite's FTS5
-- index does it (docs/design.md, "Engines"): every word of the two, case
-- and accents folded, queried by word prefixes ('acme':* & 'ban':*) against
-- a generated tsvector with a GIN index. unaccent() is only STABLE (it
-- reads its dictionary): tf_fold names the dictionary and is IMMUTABLE, as
-- a generated column needs. Folding uses ICU (und-x-icu) so every
-- alphabet's case folds, as FTS5's unicode61 tokenizer folds it; words are
-- what lies between characters that are neither letters nor digits.
CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA public;

CREATE FUNCTION tf_fold(t text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN lower(public.unaccent('public.unaccent'::regdictionary, t) COLLATE "und-x-icu");

CREATE FUNCTION tf_words(t text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN regexp_replace(tf_fold(t) COLLATE "und-x-icu", '[^[:alnum:]]+', ' ', 'g');

ALTER TABLE organisations ADD COLUMN search tsvector
    GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, tf_words(name) || ' ' || tf_words(registration_number))) STORED;
CREATE INDEX organisations_search ON organisations USING GIN (search);
