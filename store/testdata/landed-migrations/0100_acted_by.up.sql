-- A development network's impersonation (ledger/impersonate.go): the admin
-- who made an update acting as another party, '' for an update made by
-- the party's own user or the ledger.
ALTER TABLE updates ADD COLUMN acted_by TEXT NOT NULL DEFAULT '';
