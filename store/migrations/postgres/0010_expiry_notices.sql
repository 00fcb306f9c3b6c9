-- Expiry notices already sent: one per item and expiry date, so a renewed
-- item (a new date) is announced again when its turn comes.
CREATE TABLE expiry_notices (
    kind     TEXT COLLATE "C" NOT NULL CHECK (kind IN ('Certificate','Document','Certification')),
    item_id  TEXT COLLATE "C" NOT NULL,
    expiry   TEXT COLLATE "C" NOT NULL,
    sent_on  TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (kind, item_id, expiry)
);
