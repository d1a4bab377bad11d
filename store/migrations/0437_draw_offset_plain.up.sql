-- The offset draw without 0436's floor lock. A shared advisory lock with a
-- new key at every transaction's first draw cut one-step sends on the
-- shipped binary tenfold (8 clients: 0.47x pgbench before 0436, 0.04x
-- with it, 0.42-0.57x after this; bench/NOTES.md), so StableEnd again
-- covers this replica's running writes only (store/stableend.go).
{{postgres}}CREATE OR REPLACE FUNCTION ccwallet_draw_offset() RETURNS bigint
{{postgres}}LANGUAGE plpgsql AS $f$
{{postgres}}BEGIN
{{postgres}}  RETURN nextval('updates_offset_id_seq'::regclass);
{{postgres}}END $f$;
