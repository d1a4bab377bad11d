package ledger

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// Minting delegation templates (Splice.Wallet.MintingDelegation).
const (
	TemplateMintingDelegationProposal = "#splice-wallet:Splice.Wallet.MintingDelegation:MintingDelegationProposal"
	TemplateMintingDelegation         = "#splice-wallet:Splice.Wallet.MintingDelegation:MintingDelegation"
)

// MaxMergeLimit bounds a delegation's amulet merge limit.
const MaxMergeLimit = 1000

// mintingDelegationPayload is the payload of both templates: the
// beneficiary lets the delegate mint its rewards and merge its holdings
// down to mergeLimit until expiresAt.
type mintingDelegationPayload struct {
	DSO         coin.PartyID `json:"dso"`
	Beneficiary coin.PartyID `json:"beneficiary"`
	Delegate    coin.PartyID `json:"delegate"`
	ExpiresAt   string       `json:"expiresAt"`
	MergeLimit  string       `json:"amuletMergeLimit"`
}

// MintingDelegation is a proposal or an active delegation as the wallet
// shows it.
type MintingDelegation struct {
	Contract    Contract
	Beneficiary coin.PartyID
	Delegate    coin.PartyID
	ExpiresAt   time.Time
	MergeLimit  int
}

// mintingDelegationArgs are the args of KindMintingDelegationPropose.
type mintingDelegationArgs struct {
	Delegate   coin.PartyID `json:"delegate"`
	ExpiresAt  string       `json:"expires_at"`
	MergeLimit int          `json:"merge_limit"`
}

// PrepareMintingDelegationProposal prepares, for the external party
// beneficiary to sign, the creation of a MintingDelegationProposal naming
// this validator's operator as delegate.
func (l *Ledger) PrepareMintingDelegationProposal(ctx context.Context, beneficiary coin.PartyID, expiresAt time.Time, mergeLimit int) (Prepared, error) {
	if err := checkExpiry("expires_at", expiresAt, l.now()); err != nil {
		return Prepared{}, err
	}
	if mergeLimit < 1 || mergeLimit > MaxMergeLimit {
		return Prepared{}, invalid("merge_limit", "must be between 1 and %d", MaxMergeLimit)
	}
	return l.prepare(ctx, beneficiary, KindMintingDelegationPropose, nil,
		mintingDelegationArgs{Delegate: l.operator, ExpiresAt: FormatTime(expiresAt), MergeLimit: mergeLimit}, time.Time{})
}

func runMintingDelegationPropose(_ context.Context, t *txn, b *PreparedBody) (coin.ContractID, error) {
	var a mintingDelegationArgs
	if err := decodeArgs(b, &a); err != nil {
		return "", err
	}
	return t.create(TemplateMintingDelegationProposal, mintingDelegationPayload{
		DSO: t.l.dso, Beneficiary: b.Party, Delegate: a.Delegate, ExpiresAt: a.ExpiresAt, MergeLimit: fmt.Sprint(a.MergeLimit),
	}, b.Party, a.Delegate), nil
}

func (l *Ledger) delegationView(c *store.Contract) (MintingDelegation, error) {
	var p mintingDelegationPayload
	if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
		return MintingDelegation{}, fmt.Errorf("decode %s: %w", c.ContractID, err)
	}
	exp, _ := time.Parse(time.RFC3339Nano, p.ExpiresAt)
	var limit int
	_, _ = fmt.Sscan(p.MergeLimit, &limit)
	return MintingDelegation{Contract: l.contractView(c), Beneficiary: p.Beneficiary, Delegate: p.Delegate, ExpiresAt: exp, MergeLimit: limit}, nil
}

func (l *Ledger) delegations(ctx context.Context, db bun.IDB, template string, party coin.PartyID, keep func(MintingDelegation) bool) ([]MintingDelegation, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, db, template, party)
	if err != nil {
		return nil, err
	}
	out := []MintingDelegation{}
	for i := range cs {
		d, err := l.delegationView(&cs[i])
		if err != nil {
			return nil, err
		}
		if keep(d) {
			out = append(out, d)
		}
	}
	return out, nil
}

// MintingDelegationProposals lists the proposals naming delegate.
func (l *Ledger) MintingDelegationProposals(ctx context.Context, delegate coin.PartyID) ([]MintingDelegation, error) {
	return l.delegations(ctx, l.db, TemplateMintingDelegationProposal, delegate, func(d MintingDelegation) bool { return d.Delegate == delegate })
}

// MintingDelegations lists the active delegations naming delegate.
func (l *Ledger) MintingDelegations(ctx context.Context, delegate coin.PartyID) ([]MintingDelegation, error) {
	return l.delegations(ctx, l.db, TemplateMintingDelegation, delegate, func(d MintingDelegation) bool { return d.Delegate == delegate })
}

// ActiveMintingDelegations lists every unexpired delegation: reward
// collection mints each such beneficiary's coupons into the beneficiary's
// holdings (see undelegatedExternalParties).
func (l *Ledger) ActiveMintingDelegations(ctx context.Context) ([]MintingDelegation, error) {
	now := l.now()
	return l.delegations(ctx, l.db, TemplateMintingDelegation, "", func(d MintingDelegation) bool { return d.ExpiresAt.After(now) })
}

// activeDelegationContract loads an active contract of template naming
// delegate; anything else is ErrNotFound, so other parties' contracts are
// not revealed.
func (l *Ledger) activeDelegationContract(ctx context.Context, db bun.IDB, template string, cid coin.ContractID, delegate coin.PartyID) (MintingDelegation, error) {
	c, err := store.ContractByID(ctx, db, cid)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return MintingDelegation{}, err
	}
	if err == nil && c.TemplateID == template && c.ArchivedOffset == nil {
		d, err := l.delegationView(c)
		if err != nil {
			return MintingDelegation{}, err
		}
		if d.Delegate == delegate {
			return d, nil
		}
	}
	what := "minting delegation proposal"
	if template == TemplateMintingDelegation {
		what = "minting delegation"
	}
	return MintingDelegation{}, problem(ErrNotFound, "this %s is no longer active (it was accepted, rejected or withdrawn meanwhile); reload the page", what)
}

// AcceptMintingDelegationProposal accepts a proposal naming delegate: it
// archives the proposal and any delegation of the same beneficiary to
// delegate, and creates the new MintingDelegation. An expired proposal or
// an unknown beneficiary is refused.
func (l *Ledger) AcceptMintingDelegationProposal(ctx context.Context, delegate coin.PartyID, cid coin.ContractID) (coin.ContractID, error) {
	var out coin.ContractID
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		p, err := l.activeDelegationContract(ctx, c.tx, TemplateMintingDelegationProposal, cid, delegate)
		if err != nil {
			return err
		}
		if err := l.lockParties(ctx, c.tx, p.Beneficiary); err != nil {
			return err
		}
		if _, err := store.PartyByID(ctx, c.tx, p.Beneficiary); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return problem(ErrConflict, "the beneficiary %s is not a party of this network, so the proposal cannot be accepted; reject it", p.Beneficiary)
			}
			return err
		}
		if !p.ExpiresAt.After(l.now()) {
			return problem(ErrExpired, "the proposal expired at %s; reject it, and ask the beneficiary for a new one", FormatTime(p.ExpiresAt))
		}
		old, err := l.delegations(ctx, c.tx, TemplateMintingDelegation, p.Beneficiary, func(d MintingDelegation) bool {
			return d.Beneficiary == p.Beneficiary && d.Delegate == delegate
		})
		if err != nil {
			return err
		}
		t, err := c.begin(ctx, "minting-delegation-accept")
		if err != nil {
			return err
		}
		t.archive(cid)
		for _, d := range old {
			t.archive(d.Contract.ContractID)
		}
		out = t.create(TemplateMintingDelegation, mintingDelegationPayload{
			DSO: l.dso, Beneficiary: p.Beneficiary, Delegate: delegate, ExpiresAt: FormatTime(p.ExpiresAt), MergeLimit: fmt.Sprint(p.MergeLimit),
		}, p.Beneficiary, delegate)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("accept minting delegation proposal %s: %w", cid, err)
	}
	return out, nil
}

// RejectMintingDelegationProposal archives a proposal naming delegate.
func (l *Ledger) RejectMintingDelegationProposal(ctx context.Context, delegate coin.PartyID, cid coin.ContractID) error {
	return l.archiveDelegation(ctx, "minting-delegation-reject", TemplateMintingDelegationProposal, delegate, cid)
}

// WithdrawMintingDelegation archives an active delegation naming delegate.
func (l *Ledger) WithdrawMintingDelegation(ctx context.Context, delegate coin.PartyID, cid coin.ContractID) error {
	return l.archiveDelegation(ctx, "minting-delegation-withdraw", TemplateMintingDelegation, delegate, cid)
}

func (l *Ledger) archiveDelegation(ctx context.Context, kind, template string, delegate coin.PartyID, cid coin.ContractID) error {
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		if _, err := l.activeDelegationContract(ctx, c.tx, template, cid, delegate); err != nil {
			return err
		}
		t, err := c.begin(ctx, kind)
		if err != nil {
			return err
		}
		t.archive(cid)
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s %s: %w", kind, cid, err)
	}
	return nil
}

// delegateActivitySubtypes are the history rows of what the validator did
// for a party as its delegate: minting its rewards and merging its
// holdings.
var delegateActivitySubtypes = map[string]bool{
	"CollectRewards": true, MergeHistorySubtype: true, WalletMergeHistorySubtype: true, MintingMergeHistorySubtype: true,
}

// DelegateActivity lists, newest first, up to n of the latest things the
// validator did for beneficiary as its delegate: reward minting (rows with
// the DSO as counterparty) and merges (rows with the operator). Each side
// is read from its latest page of history only, so older activity behind
// many other rows is not shown.
func (l *Ledger) DelegateActivity(ctx context.Context, beneficiary coin.PartyID, n int) ([]HistoryItem, error) {
	var out []HistoryItem
	for _, by := range []coin.PartyID{l.dso, l.operator} {
		items, err := l.History(ctx, beneficiary, HistoryQuery{PageSize: 100, Counterparty: by})
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			if delegateActivitySubtypes[it.Subtype] {
				out = append(out, it)
			}
		}
	}
	slices.SortFunc(out, func(a, b HistoryItem) int { return cmp.Compare(b.ID, a.ID) })
	return out[:min(n, len(out))], nil
}

// Now is the ledger's clock, for pages that show whether a delegation
// has expired.
func (l *Ledger) Now() time.Time { return l.now() }
