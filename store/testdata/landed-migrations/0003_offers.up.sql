-- Transfer offers (two-step wallet transfers) and transfer preapprovals
-- (one-step transfers). The contracts themselves live in contracts; these
-- typed rows carry the workflow state the status endpoints answer from.
CREATE TABLE transfer_offers (
    contract_id      TEXT PRIMARY KEY,
    tracking_id      TEXT NOT NULL,
    sender           TEXT NOT NULL,
    receiver         TEXT NOT NULL,
    amount           {{amount}} NOT NULL,
    description      TEXT NOT NULL DEFAULT '',
    expires_at       {{ts}} NOT NULL,
    status           TEXT NOT NULL,
    failure_kind     TEXT NOT NULL DEFAULT '',
    withdrawn_reason TEXT NOT NULL DEFAULT '',
    accepted_cid     TEXT NOT NULL DEFAULT '',
    completed_cid    TEXT NOT NULL DEFAULT '',
    created_tx       TEXT NOT NULL DEFAULT '',
    accepted_tx      TEXT NOT NULL DEFAULT '',
    completed_tx     TEXT NOT NULL DEFAULT '',
    created_at       {{ts}} NOT NULL,
    updated_at       {{ts}} NOT NULL,
    UNIQUE (sender, tracking_id)
);
CREATE INDEX transfer_offers_receiver ON transfer_offers (receiver, tracking_id);
CREATE INDEX transfer_offers_open ON transfer_offers (status, expires_at);

CREATE TABLE transfer_preapprovals (
    contract_id     TEXT PRIMARY KEY,
    receiver        TEXT NOT NULL,
    provider        TEXT NOT NULL,
    valid_from      {{ts}} NOT NULL,
    last_renewed_at {{ts}} NOT NULL,
    expires_at      {{ts}} NOT NULL,
    archived_at     {{ts}}
);
-- At most one live preapproval per receiver.
CREATE UNIQUE INDEX transfer_preapprovals_live ON transfer_preapprovals (receiver) WHERE archived_at IS NULL;
CREATE INDEX transfer_preapprovals_expiry ON transfer_preapprovals (expires_at);
