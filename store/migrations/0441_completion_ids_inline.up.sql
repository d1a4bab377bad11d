-- A completion's row is over TOAST's 2 KB target with its exercise in it
-- (0439 keeps the exercise in the row, compressed). Postgres shrinks such
-- a row by taking the other columns first: it compresses and then moves
-- out of line every EXTENDED text longer than a TOAST pointer before it
-- compresses a MAIN one. So the submission's parties, its update and
-- submission ids, and the user and command ids of the lengths clients
-- send went to the TOAST table one by one, a row and an index entry each
-- (2-3 per completion, and as many index lookups to read it back), and
-- then the exercise was compressed anyway. Stored MAIN as well, they stay
-- in the row: Postgres compresses the exercise and, the row then close to
-- 2 KB, moves nothing, as MAIN goes out of line only past a whole page.
-- Rows written before keep their storage.
{{postgres}}ALTER TABLE completions
{{postgres}}  ALTER COLUMN user_id SET STORAGE MAIN,
{{postgres}}  ALTER COLUMN command_id SET STORAGE MAIN,
{{postgres}}  ALTER COLUMN act_as SET STORAGE MAIN,
{{postgres}}  ALTER COLUMN submission_id SET STORAGE MAIN,
{{postgres}}  ALTER COLUMN update_id SET STORAGE MAIN,
{{postgres}}  ALTER COLUMN message SET STORAGE MAIN;
