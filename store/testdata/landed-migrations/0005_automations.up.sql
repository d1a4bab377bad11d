-- Automations: leases that keep a background job to one replica at a time,
-- the merge-delegation read model, and the totals carried forward by
-- participant pruning so the conservation check stays exact.

-- One row per job name. A replica holds the lease until expires_at_ms
-- (Unix milliseconds: integers compare alike on both engines); a lease past
-- its expiry may be taken over by anyone.
CREATE TABLE job_leases (
    name          TEXT PRIMARY KEY,
    holder        TEXT NOT NULL,
    expires_at_ms BIGINT NOT NULL
);

-- Merge delegations (MergeDelegationProposal / MergeDelegation contracts):
-- status is proposed, active, withdrawn or rejected.
CREATE TABLE merge_delegations (
    contract_id  TEXT PRIMARY KEY,
    owner        TEXT NOT NULL,
    operator     TEXT NOT NULL,
    status       TEXT NOT NULL,
    proposal_cid TEXT NOT NULL,
    created_at   {{ts}} NOT NULL,
    updated_at   {{ts}} NOT NULL
);
CREATE INDEX merge_delegations_owner ON merge_delegations (owner, status);

-- Minted and burned totals of update-log rows removed by pruning. A single
-- row (id = 1) updated in the same transaction as the delete.
CREATE TABLE pruned_totals (
    id          INTEGER PRIMARY KEY,
    minted      {{amount}} NOT NULL,
    burned      {{amount}} NOT NULL,
    updates     BIGINT NOT NULL,
    contracts   BIGINT NOT NULL,
    last_offset BIGINT NOT NULL,
    pruned_at   {{ts}}
);
INSERT INTO pruned_totals (id, minted, burned, updates, contracts, last_offset) VALUES (1, '0', '0', 0, 0, 0);

-- The merge automation reads an owner's unlocked holdings in contract order,
-- 100 at a time, from parties with thousands of them.
CREATE INDEX holdings_owner_unlocked ON holdings (owner, contract_id) WHERE lock_holder IS NULL;
