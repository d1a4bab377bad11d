-- The traffic use of update-log rows removed by pruning, per submitter
-- (member), carried forward so a member's traffic status does not change
-- when its old updates are pruned (before this, pruning gave the pruned
-- traffic back). consumed and extra_consumed count the windows already
-- closed; window_index and window_used are the last window the pruned rows
-- reached (-1: none yet), which the remaining log may continue. Nothing
-- moves: a database that never pruned carries nothing, and its log still
-- holds all of its traffic.
CREATE TABLE pruned_traffic (
    submitter      TEXT PRIMARY KEY,
    consumed       BIGINT NOT NULL,
    extra_consumed BIGINT NOT NULL,
    window_index   BIGINT NOT NULL,
    window_used    BIGINT NOT NULL
);
