package pgbatch

import "github.com/ccwallet/ccwallet/store"

// sendBatchSettings are the settings of a send batch's transaction, for
// it only, as one query (claimSendsSQL runs it). Its read and write run
// on generic plans (the session's plan_cache_mode, withSessionDefaults),
// made once per connection, and these keep those plans on indexes:
//   - No sequential scans: a generic plan made while a table is small
//     (commands is empty at first) scans it whole, and keeps doing so once
//     it has grown, until an analyze of the table; and for the featured
//     template, a parameter, it guesses a large share of contracts and
//     scans them all. Every statement of the batch finds its rows by an
//     index, so none loses by this.
//   - No bitmap scans: a sender's spent holdings stay in the owner index
//     until a vacuum, and a bitmap scan visits every one of them on every
//     read, so the read grew slower by the second under load (29, then
//     55, then 95 entries per sender with 3 live holdings, within 15 s); a
//     plain index scan marks the dead entries it meets and skips them from
//     then on.
const sendBatchSettings = `SELECT set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true)`

// claimSendsSQL is claimsSQL that first applies sendBatchSettings, as its
// one-time filter, so they are in force for the read and the write that
// follow. As a statement of their own (unnamed, so parsed and planned on
// every batch) they cost about 4% of the 8-client send rate (scratch runs,
// alternated).
const claimSendsSQL = `WITH settings AS MATERIALIZED (` + sendBatchSettings + `)
SELECT c.* FROM ccwallet_claim($1::text[], $2::text[], $3::bigint[]) AS c WHERE (SELECT count(*) FROM settings) = 1`

// readSendsQuery is the read of PipeTx.Begin. One row per send
// from arrays, so the text and its plan stay the same for any batch; each
// lookup is a LATERAL subquery kept apart by OFFSET 0, so it runs per send
// by index (a plain join lets the planner scan whole tables). A receiver
// has at most one unarchived preapproval (unique index) and a key at most
// one command; the sender's holdings repeat the send's row, one each.
// Its arrays are unnested in the select list, as the write's (rowsOf).
const readSendsQuery = `SELECT r.i - 1 AS i, c.created_at AS command_at, p.contract_id, p.receiver, p.provider, p.valid_from,
	p.last_renewed_at, p.expires_at, COALESCE(p.featured, false) AS featured,
	h.contract_id AS h_contract_id, h.amount AS h_amount, h.created_round AS h_created_round,
	h.rate AS h_rate, h.lock_holder AS h_lock_holder, h.lock_expires_at AS h_lock_expires_at, h.lock_context AS h_lock_context
FROM (SELECT unnest($1::text[]) AS k, unnest($2::text[]) AS s, unnest($3::text[]) AS rc, generate_subscripts($1::text[], 1) AS i) AS r
LEFT JOIN LATERAL (SELECT created_at FROM commands WHERE dedup_key = r.k OFFSET 0) AS c ON true
LEFT JOIN LATERAL (SELECT t.*, EXISTS (SELECT 1 FROM contracts AS f WHERE f.template_id = $4 AND f.archived_offset IS NULL
		AND strpos(f.stakeholders, ',' || t.provider || ',') > 0) AS featured
	FROM transfer_preapprovals AS t WHERE t.receiver = r.rc AND t.archived_at IS NULL OFFSET 0) AS p ON true
LEFT JOIN LATERAL (SELECT * FROM holdings WHERE owner = r.s OFFSET 0) AS h ON true
ORDER BY r.i, h.contract_id`

// readSendsArgs are readSendsQuery's arguments for sends.
func readSendsArgs(sends []store.PreapprovalSendKey, featuredTemplate string) []any {
	keys, senders, receivers := make([]string, len(sends)), make([]string, len(sends)), make([]string, len(sends))
	for i, r := range sends {
		keys[i], senders[i], receivers[i] = r.Key, string(r.Sender), string(r.Receiver)
	}
	return []any{keys, senders, receivers, featuredTemplate}
}
