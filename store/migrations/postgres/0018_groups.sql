-- Administrator groups from identity providers (docs/design.md §16).
-- A binding names the claim that carries a person's groups and maps groups
-- to roles (JSON array of {"Group","Role"}).
ALTER TABLE identity_providers ADD COLUMN groups_claim TEXT COLLATE "C" NOT NULL DEFAULT 'groups';
ALTER TABLE identity_providers ADD COLUMN group_roles TEXT COLLATE "C" NOT NULL DEFAULT '[]';
-- An administrator record made by a group names the group and the provider;
-- both are empty for records made by invitation or by a Super User.
-- group_revoked is 1 while the record is Inactive because its group left the
-- person's token (not because a Super User set it Inactive).
ALTER TABLE super_users ADD COLUMN via_group TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE super_users ADD COLUMN via_provider TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE super_users ADD COLUMN group_revoked BIGINT NOT NULL DEFAULT 0;
ALTER TABLE data_administrators ADD COLUMN via_group TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE data_administrators ADD COLUMN via_provider TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE data_administrators ADD COLUMN group_revoked BIGINT NOT NULL DEFAULT 0;
