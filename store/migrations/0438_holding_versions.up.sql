-- A counter per party that every commit creating or archiving one of the
-- party's holdings raises, in the same transaction (the commit's write,
-- store.Writes): ledger/holdingsview keeps a party's valued holdings in
-- memory by it, and every replica reads it from here. A version never goes
-- back: snapshots, restores and resets leave the table alone and raise
-- every row (store/snapshot.go). A party without a row is at version 0,
-- which only a party that never had a holding is; the parties with holdings
-- now start at 1. Updates leave the key alone, so room on each page keeps
-- them heap-only on Postgres.
{{postgres}}CREATE TABLE holding_versions (party TEXT PRIMARY KEY, version BIGINT NOT NULL) WITH (fillfactor = 50);
{{sqlite}}CREATE TABLE holding_versions (party TEXT PRIMARY KEY, version BIGINT NOT NULL);
INSERT INTO holding_versions (party, version) SELECT DISTINCT owner, 1 FROM holdings;
