-- Regulatory documents can be withdrawn (issue 40): kept, never deleted,
-- left out of "Needs attention" and the expiry lists. An item of "Needs
-- attention" (a certificate by kid, a document, a certification) can be
-- acknowledged: it leaves the start page while its expiry is the one
-- acknowledged; a new expiry date brings it back.
ALTER TABLE documents ADD COLUMN status TEXT NOT NULL DEFAULT 'Active';

CREATE TABLE acknowledgements (
    subject_type     TEXT NOT NULL,
    subject_id       TEXT NOT NULL,
    expiry           TEXT NOT NULL,
    organisation_id  TEXT NOT NULL,
    acknowledged_by  TEXT NOT NULL,
    acknowledged_on  TEXT NOT NULL,
    PRIMARY KEY (subject_type, subject_id)
);
