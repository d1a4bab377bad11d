-- An unlocked holding's contract is its holdings row: the ledger builds
-- its Amulet payload from the row's columns. Spending it moves the row to
-- spent_holdings, the record of its archive, whose primary key refuses a
-- second spend of one holding. Before, every holding had a contracts row
-- too (its payload, 700 bytes, and two index entries), and a spend wrote
-- a new version of that row to mark it archived: together 6-10% of the
-- one-step send rate (scratch runs, 8 clients, 2026-11-25). Locked
-- holdings keep their LockedAmulet contract, which choice contexts
-- disclose and reassign.
ALTER TABLE holdings ADD COLUMN created_offset BIGINT NOT NULL DEFAULT 0;
ALTER TABLE holdings ADD COLUMN created_at {{ts}} NOT NULL DEFAULT '1970-01-01 00:00:00+00:00';
UPDATE holdings SET created_offset = c.created_offset, created_at = c.created_at FROM contracts AS c WHERE c.contract_id = holdings.contract_id;
DELETE FROM contracts WHERE contract_id IN (SELECT contract_id FROM holdings WHERE lock_holder IS NULL);
-- Holdings archived before this migration keep their archived contracts
-- rows until pruning removes them.
CREATE TABLE spent_holdings (
    contract_id    TEXT PRIMARY KEY,
    owner          TEXT NOT NULL,
    amount         {{amount}} NOT NULL,
    created_round  BIGINT NOT NULL,
    rate           {{amount}} NOT NULL,
    created_offset BIGINT NOT NULL,
    spent_offset   BIGINT NOT NULL
);
-- Pruning deletes by offset; new offsets only ever append to this index.
CREATE INDEX spent_holdings_offset ON spent_holdings (spent_offset);
