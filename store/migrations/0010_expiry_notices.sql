-- Expiry notices already sent: one per item and expiry date, so a renewed
-- item (a new date) is announced again when its turn comes.
CREATE TABLE expiry_notices (
    kind     TEXT NOT NULL CHECK (kind IN ('Certificate','Document','Certification')),
    item_id  TEXT NOT NULL,
    expiry   TEXT NOT NULL,
    sent_on  TEXT NOT NULL,
    PRIMARY KEY (kind, item_id, expiry)
);
