-- Reward coupons and activity records waiting to be minted: app rewards
-- (featured providers), validator rewards and liveness activity records.
CREATE TABLE reward_coupons (
    contract_id  TEXT PRIMARY KEY,
    kind         TEXT NOT NULL,
    beneficiary  TEXT NOT NULL,
    amount       {{amount}} NOT NULL,
    round        BIGINT NOT NULL,
    featured     BOOLEAN NOT NULL DEFAULT FALSE,
    collected_at {{ts}}
);
CREATE INDEX reward_coupons_beneficiary ON reward_coupons (beneficiary, round);
