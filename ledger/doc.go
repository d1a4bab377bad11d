// Package ledger is the coin's domain: parties, contracts, holdings with
// their holding fee, transfers, offers, instructions, preapprovals,
// delegations, rewards, traffic, rounds and the network rules. It owns
// every database transaction; handlers and jobs call it and never the
// store, so a rule lives here once and the web pages, the JSON APIs and
// the automations share it.
//
// # How a ledger change runs
//
// A public method validates its request (bounds, parties, amounts: the
// ValidationError of errors.go names the field), then runs the change with
// Ledger.change (change.go), the one place that begins and commits: one
// database transaction (store.DB.InTx, which retries serialization
// failures and lost races), in which the body
//
//   - reads what it needs through the change's database transaction:
//     claimCommand (commands.go) first claims the request's deduplication
//     key, so a retried request answers what the first one did, and
//     lockParties takes the parties' advisory locks on Postgres, so
//     operations on one party queue instead of conflicting;
//   - begins the change's txn (txn.go) once it knows there is something to
//     change: change.begin takes the open round (and more parties' locks,
//     in the same round trip) and claims the update's offset;
//     change.beginAt starts at a given round, drawing the offset only when
//     needed (bootstrap, the round clock, dust, reward collection);
//   - records its effects in the txn's changes (txn.go; changes hold no
//     database, txn adds the bun.Tx): contracts created (create) and
//     archived (archive), holdings spent (transfer, burnFrom,
//     archiveHolding at once; transferFrom leaves its inputs to commit's
//     write) and created (newHolding, mint), coin burned (burn), history
//     rows (record, recordPair); rows that need the update's row first (a
//     read model's row, a command's stored result) are left to
//     txn.afterCommit.
//
// change then commits the txn: txn.commit draws the offset if it has none
// (ensureOffset), stamps it on every row, archives pre-existing contracts
// with a guarded update (a lost race is store.ErrStale and the whole
// change retries), writes the update row with all its rows in one round
// trip through the ledger's store.Writer (Config.Writer: cmd passes
// store/pgbatch.For, on Postgres one prepared statement of arrays, whose columns come
// from the store's models) and reports it to the Observer; then the
// after-commit steps run and the database transaction commits. All of it
// lands, or none: an error or a panic anywhere rolls it back. A body that
// begins no txn (a deduplicated retry, nothing to do) writes no update.
// The ledger never asks which engine it runs on.
//
// A one-step send is the exception that shows the rule: its batch
// (sendbatch.go) reads everything first, and its rule
// (changes.sendPreapprovedCommand) is a pure function from those reads to
// its changes, the same on both engines; the batch commits several txns
// together through commitVia, the one commit not made by Ledger.change.
//
// The update log (the updates table, one row per change, ordered by offset)
// is what pruning trims (pruning.go) and what CheckConservation
// (conservation.go) audits: the live holdings at their initial amounts
// equal everything minted minus everything burned, exactly, and every
// offset a row records is an update in the log or a pruned one. The tests
// run it after every scenario. Pruning takes only closed rounds' updates
// and carries their traffic use forward (pruned_traffic), so no status a
// user or an automation reads changes.
//
// # Where each rule lives
//
//   - rules.go: the network's rules (fees, prices, traffic, issuance) and
//     their pure functions; rounds.go: opening and closing mining rounds,
//     the round clock and the open round in use; advance.go: a development
//     network's time jumps (AdvanceRounds), many rounds' work in bulk
//     (ledger/devnet asks for them and runs the automations after).
//   - holdings.go: balances and holdings (UTXOs); transfer.go: the
//     transfer core (input selection, fees, change, the parties' locks); dust.go: dust expiry; merge.go: merge
//     delegations and merging (who is merged, and to how many holdings);
//     ledger/airdrop: a provider's airdrop that merges in the same
//     transaction; tap.go: the faucet; devnet.go: minting outside it,
//     for development networks only.
//   - snapshot.go: a development network's restore gate and reset, and
//     Dev.Replace, under which ledger/devnet's snapshots and scenarios
//     (Seed, all or nothing; Dump) replace the state.
//   - offers.go: two-step transfer offers; instructions.go: token-standard
//     transfer instructions and their locks; preapprovals.go: transfer
//     preapprovals and one-step sends; sendbatch.go: concurrent one-step
//     sends grouped into one transaction where the Writer groups them
//     (Postgres: store/pgbatch claims, locks and reads a batch with BEGIN
//     in one round trip and writes it with COMMIT in another; see
//     docs/architecture.md).
//   - allocation_types.go: the token standard's allocations and the
//     example trading app's contracts as data (templates, payloads,
//     interface views), which the Ledger API's reads show.
//   - payments.go: the payment templates, units and the confirm page's
//     origin rule the payment workflows share; ansrules.go: the name
//     service's AnsRules and the rule for a name.
//   - tx.go: Tx, the change type the workflow packages make their changes
//     with ((*Ledger).Change over change), and ContractCommand;
//     workflow.go: the core's input rules and reads exported for them.
//     The workflows themselves are packages of their own, built and
//     wired by package workflows: ledger/subscriptions (Splice's
//     subscriptions and their automations; apps' hooks passed to New),
//     ledger/names (the name service, paid by a subscription: requests,
//     entries, lookups, ResolveParty), ledger/apppayments (an app's
//     payment requests, their acceptance, collection, refund and expiry),
//     ledger/allocations (the token standard's allocations, the example
//     trading app on them and the wallet's view of both), ledger/external
//     (the Ledger API's interactive submission, an external party's
//     balance summary).
//   - registry.go: the token-standard registry's choice contexts, transfer
//     factory and metadata; contracts.go: template IDs and the contract
//     read model.
//   - scanproxy.go: the reads behind the validator's scan proxy (rules,
//     open rounds, featured app rights, transfer commands);
//     amuletconfig.go: the AmuletRules and OpenMiningRound payloads in
//     Splice's Daml shape.
//   - external.go, external_preapprovals.go, prepared.go, signing.go:
//     external parties, whose Ed25519 keys stay off the node (topology,
//     prepare, sign, submit: the core verifies and executes a prepared
//     transaction itself); partykeys.go: their keys as ledger/external
//     reads them; package preparedtx: Canton's PreparedTransaction
//     protobuf and its V2 hash.
//   - rewards.go, reward_collection.go: reward coupons and their
//     collection; delegations.go: minting delegations.
//   - traffic.go, topup.go: traffic purchases and the top-up automation's
//     rule; sweep.go, autoaccept.go: the sweep and auto-accept automations'
//     rules.
//   - history.go: a party's history, whose amounts add up to its
//     available balance's changes (HistoryItem); parties.go: onboarding
//     and users;
//     usercache.go: the per-process cache of who a caller is.
//   - change.go: a change's database transaction (above); txn.go: what a
//     change records and its commit; commands.go: deduplication keys;
//     completions.go: the Ledger API's command completions, written with
//     the command's changes (WithCompletion) or as a rejection
//     (RecordCompletion).
//   - errors.go: the sentinel errors, which handlers map to HTTP statuses
//     in one table.
//
// Web login sessions and the automations' job leases are not the ledger's:
// cmd/ccwallet/replicas keeps them in the store for web and jobs.
package ledger
