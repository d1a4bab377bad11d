-- ccwallet_claim_fast (0440) decides the same, in fewer statements of its
-- own. In PL/pgSQL an assignment of a plain function call runs as a
-- simple expression, while PERFORM runs a query through the executor
-- (its start-up and end each time): the send batch's settings, which the
-- claim's statement applied in a CTE of its own, and the offsets' note
-- are now assignments; the lock keys, one PERFORM each, are locked by
-- one, in their order (an SRF in the select list keeps it); and each
-- offset is drawn by nextval itself, where ccwallet_draw_offset was a
-- function call of its own. Timed on a private cluster (3 keys and 3
-- lock keys a call, backend CPU, medians of 10 x 4,000): 112-127 us a
-- call of the claim's statement before, 95-103 after (bench/NOTES.md).
-- The settings (sendBatchSettings in store/pgbatch) are local to the
-- transaction, so the batch's write runs under them as before.
{{postgres}}CREATE OR REPLACE FUNCTION ccwallet_claim_fast(keys text[], lock_keys text[], lock_claims bigint[], want_round bigint, now_at timestamptz)
{{postgres}}RETURNS bigint[]
{{postgres}}LANGUAGE plpgsql AS $f$
{{postgres}}DECLARE
{{postgres}}  offs bigint[] := '{}';
{{postgres}}  n int := coalesce(cardinality(keys), 0);
{{postgres}}  done text;
{{postgres}}BEGIN
{{postgres}}  done := set_config('enable_seqscan', 'off', true);
{{postgres}}  done := set_config('enable_bitmapscan', 'off', true);
{{postgres}}  FOR k IN 1..n LOOP
{{postgres}}    IF NOT pg_try_advisory_xact_lock(hashtextextended(keys[k], 0)) THEN
{{postgres}}      RAISE EXCEPTION 'a command of the batch is in flight elsewhere' USING ERRCODE = 'CWST2';
{{postgres}}    END IF;
{{postgres}}  END LOOP;
{{postgres}}  IF cardinality(lock_keys) > 0 THEN
{{postgres}}    PERFORM pg_advisory_xact_lock(hashtextextended(unnest(lock_keys), 0));
{{postgres}}  END IF;
{{postgres}}  IF NOT EXISTS (SELECT 1 FROM rounds WHERE number = want_round AND closed_at IS NULL AND opens_at <= now_at)
{{postgres}}     OR EXISTS (SELECT 1 FROM rounds WHERE number > want_round AND closed_at IS NULL AND opens_at <= now_at) THEN
{{postgres}}    RAISE EXCEPTION 'round % is no longer the usable round', want_round USING ERRCODE = 'CWST2';
{{postgres}}  END IF;
{{postgres}}  FOR k IN 1..n LOOP
{{postgres}}    offs[k] := nextval('updates_offset_id_seq'::regclass);
{{postgres}}  END LOOP;
{{postgres}}  done := set_config('ccwallet.fast_offsets', offs::text, true);
{{postgres}}  RETURN offs;
{{postgres}}END $f$;
