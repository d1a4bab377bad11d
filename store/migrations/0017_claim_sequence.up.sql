-- ccwallet_claim (0015) with the offsets' sequence named, where it called
-- pg_get_serial_sequence('updates', 'offset_id') for every claim: that is a
-- catalog lookup each time, and the claim of a batch of 3-4 sends went
-- from 0.13 to 0.10 ms and from 22 to 6 buffer reads (pg_stat_statements,
-- 8 clients). The name is BIGSERIAL's for updates.offset_id; a test checks
-- it (TestOffsetSequenceName).
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
{{postgres}}    next_offset := CASE WHEN ok[k] THEN nextval('updates_offset_id_seq'::regclass) END;
{{postgres}}    RETURN NEXT;
{{postgres}}  END LOOP;
{{postgres}}END $f$;
