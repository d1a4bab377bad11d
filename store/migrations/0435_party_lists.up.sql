-- Contracts' stakeholders were " a b ": a party hint may hold a space,
-- so "john alice::ns" was found as " alice::ns ". They become ",a,b,"
-- (a comma is never part of a party ID; store/partymatch.go). A party
-- ID ends with "::1220" and 64 hex digits, so the old separators are the
-- spaces right after such an end.
{{postgres}}UPDATE contracts SET stakeholders = CASE WHEN btrim(stakeholders, ' ') = '' THEN ',' ELSE ',' || regexp_replace(btrim(stakeholders, ' '), '(::1220[0-9a-f]{64}) ', '\1,', 'g') || ',' END;
{{sqlite}}CREATE TEMP TABLE party_lists_0435 AS
{{sqlite}}WITH RECURSIVE s(cid, rest, acc) AS (
{{sqlite}}  SELECT contract_id, trim(stakeholders, ' '), '' FROM contracts
{{sqlite}}  UNION ALL
{{sqlite}}  SELECT cid,
{{sqlite}}    CASE WHEN instr(rest, '::1220') > 0 AND length(rest) > instr(rest, '::1220') + 69 THEN substr(rest, instr(rest, '::1220') + 71) ELSE '' END,
{{sqlite}}    acc || ',' || CASE WHEN instr(rest, '::1220') > 0 AND length(rest) > instr(rest, '::1220') + 69 THEN substr(rest, 1, instr(rest, '::1220') + 69) ELSE rest END
{{sqlite}}  FROM s WHERE rest <> '')
{{sqlite}}SELECT cid, acc || ',' AS list FROM s WHERE rest = '';
{{sqlite}}CREATE INDEX party_lists_0435_cid ON party_lists_0435 (cid);
{{sqlite}}UPDATE contracts SET stakeholders = (SELECT list FROM party_lists_0435 AS t WHERE t.cid = contracts.contract_id);
{{sqlite}}DROP TABLE party_lists_0435;
