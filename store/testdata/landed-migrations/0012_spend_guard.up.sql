-- The in-database guard of a spend inside a write batch
-- (SpendHoldingsStatement), Postgres only: a function is compiled once per
-- connection, where an inline DO block was compiled on every spend.
{{postgres}}CREATE OR REPLACE FUNCTION ccwallet_spent(got bigint, want bigint) RETURNS bigint LANGUAGE plpgsql AS $f$ BEGIN IF got <> want THEN RAISE EXCEPTION 'spend % holdings, % were available', want, got USING ERRCODE = 'CWST1'; END IF; RETURN got; END $f$;
