-- ccwallet_claim_fast (0410) claims the batch's keys itself instead of
-- through ccwallet_claim: that one returns its rows by RETURN NEXT, which
-- gathers them in a tuplestore, read again by a function scan into a
-- second one and sorted for array_agg. Each is a block of memory of its
-- own, which glibc gave back to the kernel at the end of every claim and
-- faulted in anew on the next (bench/NOTES.md). What it decides is the
-- same: every key claimed (else SQLSTATE CWST2; a key in flight elsewhere
-- fails the batch as 0410's did), the lock keys then locked, want_round
-- the usable round at now_at, and one offset drawn per key, in the keys'
-- order, kept for the write (pgbatch.fastOffsetSQL).
{{postgres}}CREATE OR REPLACE FUNCTION ccwallet_claim_fast(keys text[], lock_keys text[], lock_claims bigint[], want_round bigint, now_at timestamptz)
{{postgres}}RETURNS bigint[]
{{postgres}}LANGUAGE plpgsql AS $f$
{{postgres}}DECLARE
{{postgres}}  offs bigint[] := '{}';
{{postgres}}  n int := coalesce(cardinality(keys), 0);
{{postgres}}BEGIN
{{postgres}}  FOR k IN 1..n LOOP
{{postgres}}    IF NOT pg_try_advisory_xact_lock(hashtextextended(keys[k], 0)) THEN
{{postgres}}      RAISE EXCEPTION 'a command of the batch is in flight elsewhere' USING ERRCODE = 'CWST2';
{{postgres}}    END IF;
{{postgres}}  END LOOP;
{{postgres}}  FOR j IN 1..coalesce(cardinality(lock_keys), 0) LOOP
{{postgres}}    PERFORM pg_advisory_xact_lock(hashtextextended(lock_keys[j], 0));
{{postgres}}  END LOOP;
{{postgres}}  IF NOT EXISTS (SELECT 1 FROM rounds WHERE number = want_round AND closed_at IS NULL AND opens_at <= now_at)
{{postgres}}     OR EXISTS (SELECT 1 FROM rounds WHERE number > want_round AND closed_at IS NULL AND opens_at <= now_at) THEN
{{postgres}}    RAISE EXCEPTION 'round % is no longer the usable round', want_round USING ERRCODE = 'CWST2';
{{postgres}}  END IF;
{{postgres}}  FOR k IN 1..n LOOP
{{postgres}}    offs[k] := ccwallet_draw_offset();
{{postgres}}  END LOOP;
{{postgres}}  PERFORM set_config('ccwallet.fast_offsets', offs::text, true);
{{postgres}}  RETURN offs;
{{postgres}}END $f$;
