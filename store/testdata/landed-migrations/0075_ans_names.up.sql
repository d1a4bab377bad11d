-- The name service's read model (ledger/ans.go): one row per
-- AnsEntryContext (a user's request for a name, whose subscription pays
-- for it), with its current AnsEntry once the first payment is collected.
-- The contracts themselves live in contracts; this table answers the
-- lookups by name and by party without reading payloads, and the unique
-- index keeps one entry per name.
CREATE TABLE ans_names (
    context_cid   TEXT PRIMARY KEY,
    reference_cid TEXT NOT NULL,
    name          TEXT NOT NULL,
    owner         TEXT NOT NULL,
    url           TEXT NOT NULL,
    description   TEXT NOT NULL,
    entry_cid     TEXT,
    expires_at    {{ts}},
    paid_at       {{ts}},
    created_at    {{ts}} NOT NULL
);
CREATE UNIQUE INDEX ans_names_reference ON ans_names (reference_cid);
CREATE UNIQUE INDEX ans_names_entry_name ON ans_names (name) WHERE entry_cid IS NOT NULL;
CREATE INDEX ans_names_owner ON ans_names (owner);
