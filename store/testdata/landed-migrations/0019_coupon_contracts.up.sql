-- A reward coupon's contract is its reward_coupons row, as an unlocked
-- holding's is its holdings row (0018): the ledger builds its payload from
-- the row, and collection marks the row (collected_offset is the
-- archive's offset). A featured provider's coupon came with every send,
-- and its contracts row (payload, two index entries) cost about 3% of the
-- one-step send rate (scratch runs, 8 clients, 2026-11-25).
ALTER TABLE reward_coupons ADD COLUMN created_offset BIGINT NOT NULL DEFAULT 0;
ALTER TABLE reward_coupons ADD COLUMN created_at {{ts}} NOT NULL DEFAULT '1970-01-01 00:00:00+00:00';
ALTER TABLE reward_coupons ADD COLUMN collected_offset BIGINT;
UPDATE reward_coupons SET created_offset = c.created_offset, created_at = c.created_at, collected_offset = c.archived_offset FROM contracts AS c WHERE c.contract_id = reward_coupons.contract_id;
-- A collected coupon whose contract pruning removed: it was archived at or
-- before the last pruned offset.
UPDATE reward_coupons SET collected_offset = (SELECT last_offset FROM pruned_totals WHERE id = 1) WHERE collected_at IS NOT NULL AND collected_offset IS NULL;
DELETE FROM contracts WHERE contract_id IN (SELECT contract_id FROM reward_coupons);
