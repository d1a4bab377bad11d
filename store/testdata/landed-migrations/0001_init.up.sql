-- Placeholders: {{amount}} is NUMERIC(38,10) on Postgres and TEXT on SQLite
-- (SQLite would turn NUMERIC into a float); {{id}} is an auto-increment
-- primary key; {{ts}} a timestamp with time zone.

CREATE TABLE ledger_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE parties (
    party_id   TEXT PRIMARY KEY,
    hint       TEXT NOT NULL,
    kind       TEXT NOT NULL,
    public_key TEXT,
    created_at {{ts}} NOT NULL
);

CREATE TABLE users (
    name          TEXT PRIMARY KEY,
    party_id      TEXT NOT NULL REFERENCES parties (party_id),
    is_admin      BOOLEAN NOT NULL DEFAULT FALSE,
    install_cid   TEXT,
    created_at    {{ts}} NOT NULL,
    offboarded_at {{ts}}
);
CREATE INDEX users_party ON users (party_id);

-- The append-only update log: one row per ledger transaction. Created and
-- archived events are the contracts whose created_offset / archived_offset
-- point here. minted and burned make the conservation check a sum.
CREATE TABLE updates (
    offset_id     {{id}},
    update_id     TEXT NOT NULL UNIQUE,
    kind          TEXT NOT NULL,
    submitter     TEXT NOT NULL,
    round         BIGINT NOT NULL,
    record_time   {{ts}} NOT NULL,
    minted        {{amount}} NOT NULL,
    burned        {{amount}} NOT NULL,
    traffic_bytes BIGINT NOT NULL
);

CREATE TABLE contracts (
    contract_id     TEXT PRIMARY KEY,
    template_id     TEXT NOT NULL,
    payload         TEXT NOT NULL,
    stakeholders    TEXT NOT NULL,
    synchronizer_id TEXT NOT NULL,
    created_offset  BIGINT NOT NULL,
    archived_offset BIGINT,
    created_at      {{ts}} NOT NULL
);
CREATE INDEX contracts_created_offset ON contracts (created_offset);
CREATE INDEX contracts_archived_offset ON contracts (archived_offset);
CREATE INDEX contracts_active_template ON contracts (template_id) WHERE archived_offset IS NULL;

-- Live holdings (UTXOs). A row is deleted when the holding is spent or
-- expires; the contract row keeps its history.
CREATE TABLE holdings (
    contract_id     TEXT PRIMARY KEY,
    owner           TEXT NOT NULL,
    amount          {{amount}} NOT NULL,
    created_round   BIGINT NOT NULL,
    rate            {{amount}} NOT NULL,
    lock_holder     TEXT,
    lock_expires_at {{ts}},
    lock_context    TEXT
);
CREATE INDEX holdings_owner ON holdings (owner);

CREATE TABLE rounds (
    number           BIGINT PRIMARY KEY,
    contract_id      TEXT NOT NULL,
    price            {{amount}} NOT NULL,
    opens_at         {{ts}} NOT NULL,
    target_closes_at {{ts}} NOT NULL,
    closed_at        {{ts}}
);

-- Wallet history: one row per party per transaction that touched it.
CREATE TABLE history (
    id           {{id}},
    offset_id    BIGINT NOT NULL,
    party        TEXT NOT NULL,
    kind         TEXT NOT NULL,
    subtype      TEXT NOT NULL,
    counterparty TEXT NOT NULL DEFAULT '',
    amount       {{amount}} NOT NULL,
    fees         {{amount}} NOT NULL,
    description  TEXT NOT NULL DEFAULT '',
    round        BIGINT NOT NULL,
    record_time  {{ts}} NOT NULL,
    details      TEXT NOT NULL
);
CREATE INDEX history_party ON history (party, id);

-- Command deduplication: tracking ids, deduplication ids, command ids.
CREATE TABLE commands (
    dedup_key  TEXT PRIMARY KEY,
    party      TEXT NOT NULL,
    kind       TEXT NOT NULL,
    offset_id  BIGINT,
    result     TEXT NOT NULL,
    created_at {{ts}} NOT NULL
);
