-- Organisation Administrators (docs/design.md §3, §19): a person made an
-- administrator of one organisation; several rows for several
-- organisations. Invited until the first sign-in; Inactive is the only
-- removal. A row a provider's group made names it (via_group,
-- via_provider), as for the directory's administrators.
CREATE TABLE organisation_administrators (
    org_id        TEXT NOT NULL REFERENCES organisations(organisation_id),
    email         TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('Invited','Active','Inactive')),
    invited_by    TEXT NOT NULL,
    invited_at    TEXT NOT NULL,
    activated_at  TEXT,
    updated_at    TEXT NOT NULL,
    via_group     TEXT NOT NULL DEFAULT '',
    via_provider  TEXT NOT NULL DEFAULT '',
    group_revoked INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (org_id, email)
);
CREATE INDEX organisation_administrators_email ON organisation_administrators(email);
