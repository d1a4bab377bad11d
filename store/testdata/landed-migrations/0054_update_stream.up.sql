-- The update stream (GET /v0/updates/stream) reads, for each new update,
-- whom and which templates it touched: the history rows, contracts and
-- holdings at its offset. These indexes keep that a range read of the
-- newest offsets instead of a scan of every row.
CREATE INDEX history_offset ON history (offset_id);
CREATE INDEX contracts_created_offset ON contracts (created_offset);
CREATE INDEX holdings_created_offset ON holdings (created_offset);
CREATE INDEX spent_holdings_created_offset ON spent_holdings (created_offset);
