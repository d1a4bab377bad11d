// Package workflows builds the workflows that live in packages of their
// own on top of the ledger's core (ledger.Tx) and wires them together:
// the hooks one passes another, the automations a time jump runs. cmd
// builds one Set per ledger and hands it to the handlers, the Ledger API
// and the jobs; a test that builds those without one gets New's.
package workflows

import (
	"context"
	"slices"
	"sync"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/airdrop"
	"github.com/ccwallet/ccwallet/ledger/allocations"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/apppayments"
	"github.com/ccwallet/ccwallet/ledger/asyncsub"
	"github.com/ccwallet/ccwallet/ledger/autotransfer"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/expiry"
	"github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/featured"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/ledger/holdingsview"
	"github.com/ccwallet/ccwallet/ledger/names"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/ccwallet/ccwallet/ledger/ping"
	"github.com/ccwallet/ccwallet/ledger/provider"
	"github.com/ccwallet/ccwallet/ledger/pruning"
	"github.com/ccwallet/ccwallet/ledger/reassign"
	"github.com/ccwallet/ccwallet/ledger/registry"
	"github.com/ccwallet/ccwallet/ledger/rewards"
	"github.com/ccwallet/ccwallet/ledger/scan"
	"github.com/ccwallet/ccwallet/ledger/selftransfer"
	"github.com/ccwallet/ccwallet/ledger/subscriptions"
	"github.com/ccwallet/ccwallet/ledger/traffic"
	"github.com/ccwallet/ccwallet/ledger/userrights"
)

// Set is the workflows of one ledger.
type Set struct {
	// Ledger is the core they are built on.
	Ledger *ledger.Ledger
	// Subscriptions are Splice's subscriptions; Names the name service,
	// paid by them.
	Subscriptions *subscriptions.Service
	Names         *names.Service
	// AppPayments are Splice's app payments.
	AppPayments *apppayments.Service
	// Allocations is the token standard's DvP with the trading app.
	Allocations *allocations.Service
	// External is external parties' interactive submission.
	External *external.Service
	// APIRead is the JSON Ledger API's read model (active contracts,
	// updates, parties).
	APIRead *apiread.Service
	// Registry is the token standard's registry reads (factories and
	// choice contexts); Scan the scan proxy's and the node's reads.
	Registry *registry.Service
	Scan     *scan.Service
	// Airdrop is the provider's airdrop with auto-merge.
	Airdrop *airdrop.Service
	// Devnet is a development network's tools (time jumps, snapshots,
	// scenarios); its jumps run the subscriptions' automations.
	Devnet *devnet.Service
	// Delegations are minting and merge delegations and the merge
	// automation.
	Delegations *delegations.Service
	// Traffic is buying member traffic and the operator's top-up.
	Traffic *traffic.Service
	// Featured is featured app rights (self-grant, cancel) and featured
	// apps' delegate proxies and activity markers.
	Featured *featured.Service
	// Rewards is reward collection, run after every round (wired here:
	// ledger.Ledger.AfterRounds) and by its job, and the reading of a
	// party's reward coupons and rewards page.
	Rewards *rewards.Service
	// UserRights is the Ledger API's user management: rights, grants,
	// deactivation, deletion.
	UserRights *userrights.Service
	// Pending is what waits for a party's answer (the home page's
	// incoming offers and instructions) and its live updates' mark.
	Pending *pending.Service
	// History is the reading of a party's history: its entries, the
	// web page's pages with the rewards earned among them.
	History *history.Service
	// Holdings is the web wallet's reads of a party's holdings: the home
	// page's overview and the holdings page's list.
	Holdings *holdingsview.Service
	// Async is the store of the Ledger API's durable asynchronous
	// submissions.
	Async *asyncsub.Service
	// Provider is what the validator's automation does as its parties'
	// preapprovals' provider: accepting their proposals, renewing those
	// due (their jobs: jobs.PreapprovalProposals, jobs.PreapprovalRenewal).
	Provider *provider.Service
	// SelfTransfer is the token standard's transfer to oneself, how a
	// wallet merges or splits its holdings through the Ledger API.
	SelfTransfer *selftransfer.Service
	// Expiry ends the offers and instructions past their time (its job:
	// jobs.Expiry) and expires dust, run after every round (wired here).
	Expiry *expiry.Service
	// Pruning is participant pruning (its job: jobs.Pruning).
	Pruning *pruning.Service
	// Reassign is the development network's reassignment of contracts
	// between synchronizers.
	Reassign *reassign.Service
	// Ping is Canton's admin-workflow Ping as the Ledger API creates it.
	Ping *ping.Service
	// AutoTransfer is the wallet automations that move a user's coin:
	// sweep and auto-accept (their jobs: jobs.Sweep, jobs.AutoAccept).
	AutoTransfer *autotransfer.Service

	// jump are the automations the network's time jumps run.
	jump *jumpSteps
}

// New builds l's workflows, each given the others and the hooks it
// needs (the subscriptions' automations to the development network's
// time jumps), and gives l the steps its round clock runs after each
// round (dust expiry, then reward collection). Call it once per ledger and share the Set.
func New(l *ledger.Ledger) *Set { return build(l, &jumpSteps{}) }

// ForValidator builds the workflow packages of another validator's view
// of s's network (validators.Add): they act as that validator.
// A time jump, from either, runs the automations of every validator of
// the network (s's first), as each validator's would have run in the
// time jumped over.
func (s *Set) ForValidator(l *ledger.Ledger) *Set {
	return build(l, s.jump)
}

// jumpSteps are the automations a time jump runs: those of every
// validator of the network, in the order they were built.
type jumpSteps struct {
	mu    sync.Mutex
	steps []func(context.Context) error
}

func (j *jumpSteps) add(steps ...func(context.Context) error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.steps = append(j.steps, steps...)
}

// run runs the steps in order, stopping at the first that fails.
func (j *jumpSteps) run(ctx context.Context) error {
	j.mu.Lock()
	steps := slices.Clone(j.steps)
	j.mu.Unlock()
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return err
		}
	}
	return nil
}

// build makes the workflow packages of l; its subscriptions' automations
// join jump, which its time jumps run.
func build(l *ledger.Ledger, jump *jumpSteps) *Set {
	subs := subscriptions.New(l, map[string]subscriptions.App{names.AppName: names.App(l)})
	jump.add(subs.Automations()...)
	rw, ex := rewards.New(l), expiry.New(l)
	l.Rounds().AfterRounds(ex.AfterRounds, rw.AfterRounds)
	return &Set{Ledger: l, Subscriptions: subs, Names: names.New(l, subs), AppPayments: apppayments.New(l),
		Allocations: allocations.New(l), External: external.New(l, delegations.PreparedKinds(l)...),
		Registry: registry.New(l), Scan: scan.New(l), APIRead: apiread.New(l),
		Airdrop: airdrop.New(l), Devnet: devnet.New(l, jump.run), Delegations: delegations.New(l),
		Traffic: traffic.New(l), Featured: featured.New(l), Rewards: rw,
		UserRights: userrights.New(l), Pending: pending.New(l),
		History: history.New(l), Holdings: holdingsview.New(l), Async: asyncsub.New(l),
		Provider: provider.New(l), SelfTransfer: selftransfer.New(l), Expiry: ex, Pruning: pruning.New(l), Reassign: reassign.New(l),
		Ping: ping.New(l), AutoTransfer: autotransfer.New(l), jump: jump}
}
