-- What a Ledger API command exercised, stored with its completion (at its
-- update's offset, in the same transaction as the change): the root
-- exercise's contract, template and interface, choice, choice argument,
-- acting parties and result, as a JSON document (ledger.Exercise); '' for
-- a create, a rejection, or a command from before this column. The Ledger
-- API's ledger-effects transactions show it as the root ExercisedEvent.
ALTER TABLE completions ADD COLUMN exercise TEXT NOT NULL DEFAULT '';
