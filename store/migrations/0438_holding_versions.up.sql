-- A party's holding version: the sum of its rows' counters, which every
-- commit creating or archiving one of the party's holdings raises by one,
-- in the same transaction (the commit's write, store.Writes):
-- ledger/holdingsview keeps a party's valued holdings in memory by it, and
-- every replica reads it from here. A commit raises one slot of the
-- party's (on Postgres its connection's, pg_backend_pid() % 8), so two
-- concurrent commits paying one receiver seldom queue on one row. The sum
-- never goes back: rows are never deleted, and snapshots, restores and
-- resets leave the table alone and raise every row (store/snapshot.go). A
-- party without rows is at version 0, which only a party that never had a
-- holding is; the parties with holdings now start at 1. Updates leave the
-- key alone, so room on each page keeps them heap-only on Postgres.
{{postgres}}CREATE TABLE holding_versions (party TEXT NOT NULL, slot SMALLINT NOT NULL, version BIGINT NOT NULL, PRIMARY KEY (party, slot)) WITH (fillfactor = 50);
{{sqlite}}CREATE TABLE holding_versions (party TEXT NOT NULL, slot SMALLINT NOT NULL, version BIGINT NOT NULL, PRIMARY KEY (party, slot));
INSERT INTO holding_versions (party, slot, version) SELECT DISTINCT owner, 0, 1 FROM holdings;
