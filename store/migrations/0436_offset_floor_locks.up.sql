-- Offsets across replicas (store/stableend.go). A transaction draws its
-- offsets through ccwallet_draw_offset, which first takes, once per
-- transaction, a shared transaction-scoped advisory lock whose key holds
-- the highest offset issued before its draw (a bound below every offset
-- it draws): key 6078625 << 40 plus that offset. The lock ends with the
-- transaction, and pg_locks shows it to every session at once, so
-- StableEnd on any replica holds the ledger end below an offset another
-- replica's transaction drew and has not yet committed.
{{postgres}}CREATE OR REPLACE FUNCTION ccwallet_draw_offset() RETURNS bigint
{{postgres}}LANGUAGE plpgsql AS $f$
{{postgres}}BEGIN
{{postgres}}  IF current_setting('ccwallet.drawing', true) IS DISTINCT FROM 'on' THEN
{{postgres}}    PERFORM pg_advisory_xact_lock_shared((6078625::bigint << 40)
{{postgres}}      + (SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM updates_offset_id_seq));
{{postgres}}    PERFORM set_config('ccwallet.drawing', 'on', true);
{{postgres}}  END IF;
{{postgres}}  RETURN nextval('updates_offset_id_seq'::regclass);
{{postgres}}END $f$;
-- ccwallet_claim (0017) drawing through it.
{{postgres}}CREATE OR REPLACE FUNCTION ccwallet_claim(keys text[], lock_keys text[], lock_claims bigint[])
{{postgres}}RETURNS TABLE (r_number bigint, r_contract_id text, r_price numeric, r_opens_at timestamptz,
{{postgres}}               r_target_closes_at timestamptz, r_closed_at timestamptz, claim bigint, next_offset bigint)
{{postgres}}LANGUAGE plpgsql AS $f$
{{postgres}}DECLARE
{{postgres}}  ok boolean[] := '{}';
{{postgres}}  rd rounds%ROWTYPE;
{{postgres}}  n int := coalesce(cardinality(keys), 0);
{{postgres}}BEGIN
{{postgres}}  FOR k IN 1..n LOOP
{{postgres}}    ok[k] := pg_try_advisory_xact_lock(hashtextextended(keys[k], 0));
{{postgres}}  END LOOP;
{{postgres}}  FOR j IN 1..coalesce(cardinality(lock_keys), 0) LOOP
{{postgres}}    IF ok[lock_claims[j]] THEN
{{postgres}}      PERFORM pg_advisory_xact_lock(hashtextextended(lock_keys[j], 0));
{{postgres}}    END IF;
{{postgres}}  END LOOP;
{{postgres}}  SELECT * INTO rd FROM rounds AS x WHERE x.closed_at IS NULL ORDER BY x.number DESC LIMIT 1;
{{postgres}}  IF NOT FOUND THEN
{{postgres}}    RETURN;
{{postgres}}  END IF;
{{postgres}}  FOR k IN 1..n LOOP
{{postgres}}    r_number := rd.number;
{{postgres}}    r_contract_id := rd.contract_id;
{{postgres}}    r_price := rd.price;
{{postgres}}    r_opens_at := rd.opens_at;
{{postgres}}    r_target_closes_at := rd.target_closes_at;
{{postgres}}    r_closed_at := rd.closed_at;
{{postgres}}    claim := k;
{{postgres}}    next_offset := CASE WHEN ok[k] THEN ccwallet_draw_offset() END;
{{postgres}}    RETURN NEXT;
{{postgres}}  END LOOP;
{{postgres}}END $f$;
