-- One index on holdings by owner instead of two: (owner, contract_id)
-- serves the lookups by owner and the merge automation's paging in
-- contract order (its few locked holdings are filtered out on the way),
-- and every holding created or spent updates one index fewer.
DROP INDEX holdings_owner;
DROP INDEX holdings_owner_unlocked;
CREATE INDEX holdings_owner_contract ON holdings (owner, contract_id);
