-- A prepared (Next) federation key keeps the instant from which it may
-- sign (docs/design.md §13): the time it was prepared plus the prepublish
-- time in force then. Activation checks this instant, not the flags of the
-- process that activates, so every instance and the CLI agree. A Next key
-- prepared before this migration has none (NULL): it is reckoned as before,
-- from its creation time and the activating process's prepublish time.
ALTER TABLE federation_keys ADD COLUMN may_sign_from TEXT COLLATE "C";
