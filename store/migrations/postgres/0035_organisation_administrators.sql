-- Organisation Administrators (docs/design.md §3, §19): a person made an
-- administrator of one organisation; several rows for several
-- organisations. Invited until the first sign-in; Inactive is the only
-- removal. A row a provider's group made names it (via_group,
-- via_provider), as for the directory's administrators.
CREATE TABLE organisation_administrators (
    org_id        TEXT COLLATE "C" NOT NULL REFERENCES organisations(organisation_id),
    email         TEXT COLLATE "C" NOT NULL,
    status        TEXT COLLATE "C" NOT NULL CHECK (status IN ('Invited','Active','Inactive')),
    invited_by    TEXT COLLATE "C" NOT NULL,
    invited_at    TEXT COLLATE "C" NOT NULL,
    activated_at  TEXT COLLATE "C",
    updated_at    TEXT COLLATE "C" NOT NULL,
    via_group     TEXT COLLATE "C" NOT NULL DEFAULT '',
    via_provider  TEXT COLLATE "C" NOT NULL DEFAULT '',
    group_revoked BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (org_id, email)
);
CREATE INDEX organisation_administrators_email ON organisation_administrators(email);
