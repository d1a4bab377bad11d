-- Accepted asynchronous Ledger API submissions (POST
-- /v2/commands/async/submit) when ledgerApi.durableAsync is on (issue 38):
-- a row is committed before the client is answered {} and removed once
-- the submission's outcome (its change with its completion, or its
-- rejection's completion) is stored, so one answered but lost in a crash
-- runs after the restart. owner is the process running it; after_offset
-- the ledger end when it was kept, so a completion after it tells that
-- it ran.
CREATE TABLE async_submissions (
    id           {{id}},
    owner        TEXT NOT NULL,
    user_id      TEXT NOT NULL,
    act_as_claim TEXT NOT NULL,
    request_id   TEXT NOT NULL,
    command_id   TEXT NOT NULL,
    body         TEXT NOT NULL,
    after_offset BIGINT NOT NULL,
    created_at   {{ts}} NOT NULL
);
CREATE INDEX async_submissions_owner ON async_submissions (owner, id);
-- Each process running durable asynchronous submissions says it is alive
-- here; the rows of an owner not seen for a while are taken over.
CREATE TABLE async_owners (
    owner   TEXT PRIMARY KEY,
    seen_at {{ts}} NOT NULL
);
