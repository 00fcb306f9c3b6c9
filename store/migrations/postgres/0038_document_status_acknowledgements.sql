-- Regulatory documents can be withdrawn (issue 40): kept, never deleted,
-- left out of "Needs attention" and the expiry lists. An item of "Needs
-- attention" (a certificate by kid, a document, a certification) can be
-- acknowledged: it leaves the start page while its expiry is the one
-- acknowledged; a new expiry date brings it back.
ALTER TABLE documents ADD COLUMN status TEXT COLLATE "C" NOT NULL DEFAULT 'Active';

CREATE TABLE acknowledgements (
    subject_type     TEXT COLLATE "C" NOT NULL,
    subject_id       TEXT COLLATE "C" NOT NULL,
    expiry           TEXT COLLATE "C" NOT NULL,
    organisation_id  TEXT COLLATE "C" NOT NULL,
    acknowledged_by  TEXT COLLATE "C" NOT NULL,
    acknowledged_on  TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (subject_type, subject_id)
);
