-- Fewer index entries per created contract, the hot path's largest table:
-- nothing looks contracts up by created_offset, and only pruning looks
-- them up by archived_offset, among archived ones.
DROP INDEX contracts_created_offset;
DROP INDEX contracts_archived_offset;
CREATE INDEX contracts_archived ON contracts (archived_offset) WHERE archived_offset IS NOT NULL;
