-- The Ledger API's command completions (POST /v2/commands/completions):
-- one row per submission's outcome, at the offset of the update that
-- carried it (a success's own update; a rejection's empty one), so they
-- are pruned with the update log. act_as is the submission's parties,
-- comma-separated; status_code is the gRPC code (0: success) and message
-- Canton's "ERROR_ID(category,correlation): cause".
CREATE TABLE completions (
    offset_id     BIGINT PRIMARY KEY,
    user_id       TEXT NOT NULL,
    command_id    TEXT NOT NULL,
    act_as        TEXT NOT NULL,
    submission_id TEXT NOT NULL,
    update_id     TEXT NOT NULL,
    status_code   BIGINT NOT NULL,
    message       TEXT NOT NULL,
    record_time   {{ts}} NOT NULL
);
CREATE INDEX completions_user ON completions (user_id, offset_id);
