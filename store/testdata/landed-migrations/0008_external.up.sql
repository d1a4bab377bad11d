-- Prepared external-party transactions: what the wallet prepared for an
-- external party to sign, until it is submitted or expires. tx_hash is the
-- hex hash the party signs; body is the exact encoded transaction.
CREATE TABLE prepared_transactions (
    tx_hash     TEXT PRIMARY KEY,
    party       TEXT NOT NULL,
    kind        TEXT NOT NULL,
    body        TEXT NOT NULL,
    status      TEXT NOT NULL,
    result      TEXT,
    created_at  {{ts}} NOT NULL,
    expires_at  {{ts}} NOT NULL,
    executed_at {{ts}}
);
CREATE INDEX prepared_transactions_party ON prepared_transactions (party, created_at);
