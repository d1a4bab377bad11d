package ledger

import (
	"context"
	"log/slog"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// What a workflow package (ledger/subscriptions, ledger/apppayments, ...)
// needs of the core besides Tx: its database for reads, the contract
// view, and the one copy of each input rule, so a workflow's refusals
// read as the core's do.

// DB is the ledger's database, for a workflow's reads outside a change
// (its read models, the contracts of its templates). Writes go through
// Change.
func (l *Ledger) DB() *store.DB { return l.db }

// Hosted reports whether party's automation runs here: a party of this
// node whose key is here (not an external party), and not of another
// validator of the network (HostedElsewhere).
func (l *Ledger) Hosted(ctx context.Context, party coin.PartyID) bool {
	p, err := store.PartyByID(ctx, l.db, party)
	return err == nil && p.Kind != PartyKindExternal && !l.Validators().HostedElsewhere(party)
}

// UsableRound is the open round a transaction or a balance uses now, the
// one rule the wallet's balance and the registry share (usable).
func (l *Ledger) UsableRound(ctx context.Context, db bun.IDB) (*store.Round, error) {
	return l.Rounds().usableRound(ctx, db)
}

// UsableFrom is UsableRound given the latest open round, read already
// (with a party's holding version, store.RoundAndHoldingVersion).
func (l *Ledger) UsableFrom(ctx context.Context, db bun.IDB, latest *store.Round) (*store.Round, error) {
	return l.Rounds().usable(ctx, db, latest)
}

// RefuseReassigning is ErrReassigning when any of ids is being reassigned
// between synchronizers (the one check every path makes).
func RefuseReassigning(ctx context.Context, l *Ledger, db bun.IDB, ids ...coin.ContractID) error {
	return l.Reassignments().refuse(ctx, db, ids...)
}

// Logger is the ledger's logger, for what a workflow's automation reports
// without failing (a step it tries again later).
func (l *Ledger) Logger() *slog.Logger { return l.log }

// Namespace is the namespace this node's parties are made in.
func (l *Ledger) Namespace() string { return l.namespace }

// TemplateDelegateProxy is a featured app's delegate proxy
// (splice-util-featured-app-proxies; its workflow is ledger/featured).
const TemplateDelegateProxy = "#splice-util-featured-app-proxies:Splice.Util.FeaturedApp.DelegateProxy:DelegateProxy"

// CreateContract creates one contract of template with payload on l, its
// stakeholders parties (the first owns the command record), as one change
// deduplicated by cmd's key (none when empty), with cmd's completion.
func CreateContract(ctx context.Context, l *Ledger, kind string, cmd commands.Command, template string, payload any, parties ...coin.PartyID) (coin.ContractID, error) {
	return l.createContract(ctx, kind, cmd, template, payload, parties...)
}

// StoredContract is a contract of l as the core stores its own (the
// payload's JSON, the stakeholders, l's synchronizer), for a workflow that
// shows one of its rows as a contract (ledger/rewards' coupons).
func StoredContract(l *Ledger, id coin.ContractID, templateID string, payload any, at time.Time, stakeholders ...coin.PartyID) store.Contract {
	return l.contract(id, templateID, payload, at, stakeholders...)
}

// RewardTemplate is the template ID of a reward kind's coupon.
func RewardTemplate(kind string) string { return rewardTemplates[kind] }

// NoteReassignments adds n to the reassignments l's one-step sends check
// for (ledger/reassign: 1 begun, -1 completed; never below 0, as one
// begun by another replica may complete here).
func NoteReassignments(l *Ledger, n int64) {
	if l.reassigning.Add(n) < 0 {
		l.reassigning.Store(0)
	}
	l.referenceVersion.Add(1) // a contract's synchronizer may change
}
