-- Token-standard transfer instructions: the typed view of the
-- AmuletTransferInstruction contracts, with the state machine's status.
-- status moves only out of 'pending', with a guarded update.
CREATE TABLE transfer_instructions (
    contract_id        TEXT PRIMARY KEY,
    sender             TEXT NOT NULL,
    receiver           TEXT NOT NULL,
    amount             {{amount}} NOT NULL,
    description        TEXT NOT NULL DEFAULT '',
    locked_holding_cid TEXT NOT NULL,
    requested_at       {{ts}} NOT NULL,
    execute_before     {{ts}} NOT NULL,
    status             TEXT NOT NULL,
    tracking_id        TEXT NOT NULL DEFAULT '',
    result_cids        TEXT NOT NULL DEFAULT '',
    created_offset     BIGINT NOT NULL,
    finished_offset    BIGINT,
    finished_at        {{ts}}
);
CREATE INDEX transfer_instructions_sender ON transfer_instructions (sender, status);
CREATE INDEX transfer_instructions_receiver ON transfer_instructions (receiver, status);
CREATE INDEX transfer_instructions_deadline ON transfer_instructions (status, execute_before);

-- Contracts being reassigned between synchronizers. While a row exists the
-- contract cannot be disclosed (the registry answers 409).
CREATE TABLE contract_reassignments (
    contract_id            TEXT PRIMARY KEY,
    source_synchronizer_id TEXT NOT NULL,
    target_synchronizer_id TEXT NOT NULL,
    started_at             {{ts}} NOT NULL
);

-- Extra traffic purchased per member (validator) and synchronizer: the
-- typed view of the MemberTraffic contract.
CREATE TABLE member_traffic (
    member_id       TEXT NOT NULL,
    synchronizer_id TEXT NOT NULL,
    contract_id     TEXT NOT NULL,
    total_purchased BIGINT NOT NULL,
    num_purchases   BIGINT NOT NULL,
    coin_spent      {{amount}} NOT NULL,
    usd_spent       {{amount}} NOT NULL,
    PRIMARY KEY (member_id, synchronizer_id)
);
