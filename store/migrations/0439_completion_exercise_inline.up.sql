-- A completion carries its command's exercise (ledger.Exercise as JSON,
-- 4-5 KB for a token-standard transfer through the wallet SDK). Past 2 KB
-- Postgres compressed it with pglz and, still above 2 KB, moved it out of
-- line into the TOAST table: two more rows and index entries for every
-- completion, about 6% of the database's CPU in the SDK row
-- (bench/NOTES.md). Stored MAIN it stays in the row, compressed (out of
-- line only if the row would not fit a page); and where the server has
-- lz4 (Postgres 14 or later built with it, as Debian's and the official
-- images are) it is compressed by lz4, several times cheaper than pglz.
-- Rows written before keep their storage.
{{postgres}}ALTER TABLE completions ALTER COLUMN exercise SET STORAGE MAIN;
{{postgres}}DO $f$
{{postgres}}BEGIN
{{postgres}}  EXECUTE 'ALTER TABLE completions ALTER COLUMN exercise SET COMPRESSION lz4';
{{postgres}}EXCEPTION WHEN feature_not_supported OR syntax_error THEN
{{postgres}}  RAISE NOTICE 'completions.exercise keeps pglz: %', SQLERRM;
{{postgres}}END $f$;
