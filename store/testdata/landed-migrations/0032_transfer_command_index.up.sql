-- transfer-command/status looks a sender's TransferCommands of the last
-- 24 hours up, archived ones included; a partial index keeps that off a
-- scan of every contract without costing the hot path's other inserts.
CREATE INDEX contracts_transfer_commands ON contracts (created_at) WHERE template_id = '#splice-amulet:Splice.ExternalPartyAmuletRules:TransferCommand';
