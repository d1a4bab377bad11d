-- A development network's time jump opens thousands of rounds and leaves
-- their coupons collected behind them. Every ledger change reads the open
-- rounds, and reward collection (the job, and each piece of a jump) the
-- uncollected coupons of the rounds before the oldest open one: these
-- partial indexes keep both reads to the few rows still open or
-- uncollected instead of every round and coupon there ever was.
CREATE INDEX rounds_open ON rounds (number) WHERE closed_at IS NULL;
CREATE INDEX reward_coupons_due ON reward_coupons (round) WHERE collected_at IS NULL;
