// Package ledger is the coin's core: what money depends on (a change's
// one database transaction, Ledger.change and its txn; holdings with their
// holding fee; transfers; rounds and the network rules; conservation;
// offers, instructions, preapprovals and the batching of one-step sends)
// and Tx, the change type with which the workflow packages built on it
// (ledger/subscriptions, ledger/allocations, ... wired by ledger/workflows)
// make their changes. It owns every database transaction; handlers and
// jobs call it and never the store, so a rule lives here once and the web
// pages, the JSON APIs and the automations share it.
//
// How one change runs, from the request to the commit, and how the update
// log keeps it auditable (CheckConservation, pruning) is told once, in
// docs/architecture.md ("A ledger change's life"). The one ledger
// transaction not run by Ledger.change is the batch of one-step sends
// (sendbatch.go, "The fast path" there).
//
// # Where each rule lives
//
//   - rules.go: the network's rules (fees, prices, traffic, issuance) and
//     their pure functions; rounds.go: the round clock (Rounds, reached
//     by Ledger.Rounds): opening and closing mining rounds and the open
//     round in use; verbs_devnet.go: many rounds opened in one change
//     (AdvanceMany; ledger/devnet's time jumps run it in pieces, collect
//     the rewards across them and run the automations after).
//   - holdings.go: balances and holdings (UTXOs), which ledger/holdingsview
//     reads for the web wallet and the wallet API (the home page's
//     overview, the holdings page's list, the send form's Max, the list
//     with contracts); transfer.go: the
//     transfer core (input selection, fees, change, the parties' locks)
//     and a self-transfer's move (Tx.SelfTransfer; the Ledger API's
//     self-transfer around it is ledger/selftransfer's); dust.go: the
//     rule of dust expiry (Tx.ExpireDust; the automation, run after
//     every round, is ledger/expiry's); merge.go: merge delegations and merging (who is merged, and to how many holdings);
//     ledger/airdrop: a provider's airdrop that merges in the same
//     transaction.
//   - snapshot.go: a development network's Dev powers (reached by
//     Ledger.Dev): closing and opening its restore gate, reading the
//     ledger's memory of the state again (Reload) and making the network
//     anew (Renew), on which ledger/devnet's restore, reset, snapshots
//     and scenarios (Seed, all or nothing; Dump) replace the state.
//   - offers.go: two-step transfer offers; instructions.go: token-standard
//     transfer instructions and their locks (the automation that expires
//     both is ledger/expiry's); preapprovals.go: transfer
//     preapprovals and one-step sends (their proposals, the renewal
//     automation and the reads the pages show are ledger/provider's);
//     sendbatch.go: the core's sender,
//     concurrent one-step sends grouped into one transaction where the
//     Writer groups them
//     (Postgres: store/pgbatch claims, locks and reads a batch with BEGIN
//     in one round trip and writes it with COMMIT in another; see
//     docs/architecture.md).
//   - ansrules.go: the name service's AnsRules and its config (the rule
//     for a name, names.CheckName, is ledger/names');
//     the payment templates, units and the confirm page's origin rule the
//     payment workflows share are ledger/payments'.
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
//     trading app on them and the wallet's view of both; their contracts
//     as data are ledger/allocationdata's, which the Ledger API's reads
//     and the registry share), ledger/external
//     (the Ledger API's interactive submission, an external party's
//     balance summary).
//   - contracts.go: template IDs and the contract read model (the
//     registry's and the scan proxy's reads are ledger/registry's and
//     ledger/scan's); amuletconfig.go: the AmuletRules and
//     OpenMiningRound payloads filled from the Rules, in Splice's Daml
//     shapes, which are ledger/damljson's.
//   - verbs_external.go: what ledger/external (external parties, whose
//     Ed25519 keys stay off the node: onboarding, prepare, sign, submit)
//     needs of the core: the rules its prepared kinds run (Tx's
//     NewPreapproval, SendPreapproved, RecordTransfer), their templates
//     and the cache of party rows; package preparedtx: Canton's
//     PreparedTransaction protobuf and its V2 hash.
//   - rewards.go: reward coupons; reward_collection.go: the issuance
//     caps (Rules.CouponIssuance); collecting them is ledger/rewards'.
//     delegation_contracts.go: the merge itself (MergeTarget,
//     Tx.MergeInputs, Tx.MergeDelegated); the delegations' templates,
//     states, payloads and reads are ledger/delegations'.
//   - verbs_traffic.go: the traffic templates and the burn a purchase
//     pays with (Tx.BurnFrom); purchases, the top-up automation and the
//     meter of a member's traffic use are ledger/traffic's; the sweep and
//     auto-accept automations are package ledger/autotransfer.
//   - historykind.go: the kinds of a party's history rows, whose amounts
//     add up to its available balance's changes (ledger/history reads
//     them: history.Item); parties.go: the participant and whether a
//     party is known (KnownParty); usercache.go: the per-process cache of
//     who a caller is, which ledger/users (onboarding, the reads of a
//     user) keeps through core.go's Core, the seam the workflows that
//     keep the core's own books are built on (the kinds of a user's
//     right and changing them are ledger/userrights'); validators.go:
//     the set of the network's validators in this process (kept in a
//     ledger/validatorset.Set), each a view of the network (adding one,
//     LocalNet's app provider, is ledger/validators', through Core).
//   - change.go: a change's database transaction (docs/architecture.md); txn.go: what a
//     change records and its commit; commands.go: deduplication keys and
//     Command, which an entry point that records one is given: its key
//     and, for a Ledger API submission (Completing), its completion;
//     completions.go: the Ledger API's command completions, written with
//     the command's changes (the Command's, by saveCommand and
//     Tx.SaveCommand) or as a rejection (RecordCompletion).
//   - errors.go: the sentinel errors, which handlers map to HTTP statuses
//     in one table.
//
// Web login sessions and the automations' job leases are not the ledger's:
// cmd/ccwallet/replicas keeps them in the store for web and jobs.
package ledger
