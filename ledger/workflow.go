package ledger

import (
	"context"
	"log/slog"
	"time"

	"github.com/ccwallet/ccwallet/coin"
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

// ContractView is a stored contract as the wallet and the APIs show it.
func (l *Ledger) ContractView(c *store.Contract) Contract { return l.contractView(c) }

// Hosted reports whether party's automation runs here: a party of this
// node whose key is here (not an external party), and not of another
// validator of the network (HostedElsewhere).
func (l *Ledger) Hosted(ctx context.Context, party coin.PartyID) bool {
	p, err := store.PartyByID(ctx, l.db, party)
	return err == nil && p.Kind != PartyKindExternal && !l.Validators().HostedElsewhere(party)
}

// Invalid is the error for a bad input field (a *ValidationError).
func Invalid(field, format string, args ...any) error { return invalid(field, format, args...) }

// NotFoundf is an ErrNotFound with its own words.
func NotFoundf(format string, args ...any) error { return notFoundf(format, args...) }

// CheckAmount refuses an amount that is not positive or does not fit.
func CheckAmount(field string, a coin.Amount) error { return checkAmount(field, a) }

// CheckFits refuses an amount beyond coin.MaxAmount.
func CheckFits(field string, a coin.Amount) error { return checkFits(field, a) }

// CheckText refuses a description too long, or with NUL or bad UTF-8.
func CheckText(field, s string) error { return checkText(field, s) }

// CheckID refuses a client-chosen id too long, or with NUL or bad UTF-8.
func CheckID(field, id string) error { return checkID(field, id) }

// TextFields refuses NUL and invalid UTF-8 in (name, value) pairs.
func TextFields(kv ...string) error { return textFields(kv...) }

// CheckExpiry refuses a deadline outside the time range or not after now.
func CheckExpiry(field string, t, now time.Time) error { return checkExpiry(field, t, now) }

// ParseTime parses a Daml-JSON timestamp field, bounded.
func ParseTime(field, s string) (time.Time, error) { return parseTime(field, s) }

// Clip shortens s for an error message.
func Clip(s string, n int) string { return clip(s, n) }

// HumanCC writes an amount for a person ("19,311.2").
func HumanCC(a coin.Amount) string { return humanCC(a) }

// Authorized refuses a command unless every party of need is among actAs.
func Authorized(actAs []coin.PartyID, what string, need ...coin.PartyID) error {
	return authorized(actAs, what, need...)
}

// ContractParties are a stored contract's stakeholders.
func ContractParties(c *store.Contract) []coin.PartyID { return contractParties(c) }

// IsFeatured reports whether provider holds a FeaturedAppRight.
func IsFeatured(ctx context.Context, db bun.IDB, provider coin.PartyID) (bool, error) {
	return isFeatured(ctx, db, provider)
}

// PaymentAmount is splice-wallet-payments' PaymentAmount.
type PaymentAmount = paymentAmount

// InstrumentRef is the token standard's InstrumentId.
type InstrumentRef = instrumentRef

// Metadata is the token standard's Metadata.
type Metadata = metadata

// RoundRef is Splice's Round in Daml-JSON ({"number": "7"}).
type RoundRef = roundRef

// RoundRefOf is round r in Daml-JSON.
func RoundRefOf(r coin.Round) RoundRef { return roundString(r) }

// RelTimeOf is d as Daml's RelTime.
func RelTimeOf(d time.Duration) RelTime { return relTime(d) }

// RelTime is Daml's RelTime in Daml-JSON (damljson.RelTime).
type RelTime = damlRelTime

// Cost is what the sender's balance gives for outputs worth outputs: the
// outputs, the fees and the holding fees of the inputs.
func (r *TransferResult) Cost(outputs coin.Amount) coin.Amount { return r.cost(outputs) }

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

// UUIDHex is a fresh version 7 UUID (time-ordered) in hex.
func UUIDHex() string { return uuidHex() }

// ProblemWords is the people's words of err: its *Problem's, else its text.
func ProblemWords(err error) string { return problemWords(err) }

// RefuseReassigning is ErrReassigning when any of ids is being reassigned
// between synchronizers (the one check every path makes).
func RefuseReassigning(ctx context.Context, l *Ledger, db bun.IDB, ids ...coin.ContractID) error {
	return l.Reassignments().refuse(ctx, db, ids...)
}

// FeaturedAppRightID is provider's FeaturedAppRight contract id;
// ErrNotFound when provider is not featured.
func (l *Ledger) FeaturedAppRightID(ctx context.Context, provider coin.PartyID) (coin.ContractID, error) {
	return featuredAppRightOf(ctx, l.db, provider)
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
func CreateContract(ctx context.Context, l *Ledger, kind string, cmd Command, template string, payload any, parties ...coin.PartyID) (coin.ContractID, error) {
	return l.createContract(ctx, kind, cmd, template, payload, parties...)
}

// FeaturedRightsOf lists provider's live FeaturedAppRights.
func FeaturedRightsOf(ctx context.Context, db bun.IDB, provider coin.PartyID) ([]coin.ContractID, error) {
	return featuredRightsOf(ctx, db, provider)
}

// RewardContract is a reward coupon's contract, built from its row
// (archived once collected).
func RewardContract(l *Ledger, c store.RewardCoupon) *store.Contract { return rewardContract(l, c) }

// InstructionView is a stored transfer instruction as the wallet shows
// it, without its contract.
func InstructionView(l *Ledger, ti *store.TransferInstruction) TransferInstruction {
	return l.Instructions().view(ti, nil)
}

// OfferView is a stored transfer offer as the wallet shows it.
func OfferView(o *store.TransferOffer) Offer { return offerView(o) }

// InstructionWithContract is a stored transfer instruction as the wallet
// shows it, with its contract c (nil: without).
func InstructionWithContract(l *Ledger, ti *store.TransferInstruction, c *store.Contract) TransferInstruction {
	return l.Instructions().view(ti, c)
}

// OtherNamespaces are the participant namespaces of the network's other
// validators: their automations, not l's, run their parties' wallets.
func OtherNamespaces(l *Ledger) []string { return l.Validators().otherNamespaces() }

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

// LockParties takes the parties' locks in tx, in the core's order, until tx ends.
func (l *Ledger) LockParties(ctx context.Context, tx bun.Tx, parties ...coin.PartyID) error {
	return l.lockParties(ctx, tx, parties...)
}
