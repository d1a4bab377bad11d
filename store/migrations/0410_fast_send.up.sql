-- The one-round-trip batch of one-step sends (store/pgbatch/fast.go): the
-- ledger runs the send rule on what it read and wrote in the batches
-- before (its cache of senders' holdings, receivers' preapprovals and the
-- usable round), and sends BEGIN, the claim, the write and COMMIT
-- together. These functions are the claim's and the write's guards: what
-- the cache assumed is checked inside the transaction, and any miss fails
-- it whole (SQLSTATE CWST2), so the ledger runs the batch again the way
-- that reads first.
--
-- ccwallet_claim_fast claims as ccwallet_claim (0017) does, fails unless
-- every key was claimed and want_round is the usable round at now_at (open,
-- opened, and no newer open round opened; the ledger's usable rule), and
-- keeps the drawn offsets for the write (pgbatch.fastOffsetsSQL), for this
-- transaction only.
{{postgres}}CREATE OR REPLACE FUNCTION ccwallet_claim_fast(keys text[], lock_keys text[], lock_claims bigint[], want_round bigint, now_at timestamptz)
{{postgres}}RETURNS bigint[]
{{postgres}}LANGUAGE plpgsql AS $f$
{{postgres}}DECLARE
{{postgres}}  offs bigint[];
{{postgres}}BEGIN
{{postgres}}  SELECT array_agg(c.next_offset ORDER BY c.claim) INTO offs FROM ccwallet_claim(keys, lock_keys, lock_claims) AS c;
{{postgres}}  IF coalesce(cardinality(offs), 0) <> coalesce(cardinality(keys), 0) OR array_position(offs, NULL) IS NOT NULL THEN
{{postgres}}    RAISE EXCEPTION 'a command of the batch is in flight elsewhere' USING ERRCODE = 'CWST2';
{{postgres}}  END IF;
{{postgres}}  IF NOT EXISTS (SELECT 1 FROM rounds WHERE number = want_round AND closed_at IS NULL AND opens_at <= now_at)
{{postgres}}     OR EXISTS (SELECT 1 FROM rounds WHERE number > want_round AND closed_at IS NULL AND opens_at <= now_at) THEN
{{postgres}}    RAISE EXCEPTION 'round % is no longer the usable round', want_round USING ERRCODE = 'CWST2';
{{postgres}}  END IF;
{{postgres}}  PERFORM set_config('ccwallet.fast_offsets', offs::text, true);
{{postgres}}  RETURN offs;
{{postgres}}END $f$;
-- ccwallet_fresh fails the statement unless ok: what the cache assumed
-- (a preapproval live, a provider featured or not) no longer holds.
{{postgres}}CREATE OR REPLACE FUNCTION ccwallet_fresh(ok boolean, what text) RETURNS boolean
{{postgres}}LANGUAGE plpgsql AS $f$
{{postgres}}BEGIN
{{postgres}}  IF ok IS NOT TRUE THEN
{{postgres}}    RAISE EXCEPTION '% changed since it was read', what USING ERRCODE = 'CWST2';
{{postgres}}  END IF;
{{postgres}}  RETURN ok;
{{postgres}}END $f$;
