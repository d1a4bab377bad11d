-- The wallet's schema (persistence.schema in values.yaml, the seed's
-- "participant"): the wallet creates its tables but not the schema. The
-- postgres image runs this once, on an empty data volume, as cnadmin in
-- participant_<MIGRATION_ID>.
CREATE SCHEMA IF NOT EXISTS participant;
