-- The in-database guard of the spends inside a write (store.writeSQL, whose
-- last line calls it), Postgres only: it fails the whole statement, and so
-- the transaction, when fewer holdings were spent than asked. A function is
-- compiled once per connection, where an inline DO block was compiled on
-- every spend.
{{postgres}}CREATE OR REPLACE FUNCTION ccwallet_spent(got bigint, want bigint) RETURNS bigint
{{postgres}}LANGUAGE plpgsql AS $f$
{{postgres}}BEGIN
{{postgres}}  IF got <> want THEN
{{postgres}}    RAISE EXCEPTION 'spend % holdings, % were available', want, got USING ERRCODE = 'CWST1';
{{postgres}}  END IF;
{{postgres}}  RETURN got;
{{postgres}}END $f$;
