// Package delegations owns the delegations a party gives the validator's
// operator: minting delegations (an external party lets the operator mint
// its rewards and merge its holdings), merge delegations (Splice's
// MergeDelegation, proposed at onboarding or through the Ledger API, and
// the operator's merges by delegation) and the merge automation that
// brings every party the wallet acts for down to its merge target, and
// the rule that the operator's pages answer only to it (OperatorOnly). The
// minting delegations' payloads and reads are here too
// (MintingDelegationsIn, and UndelegatedExternalParties, whose coupons
// reward collection leaves alone). The core keeps the templates, the
// merge delegation's payloads, which onboarding's proposal writes, and
// the one merge of a party's holdings (ledger.Tx.MergeInputs).
package delegations

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// Service is the delegations of one ledger.
type Service struct {
	l       *ledger.Ledger
	history *history.Service
	// ext prepares the minting delegation proposals external parties sign.
	ext *external.Service
}

// New builds the delegations on l.
func New(l *ledger.Ledger) *Service {
	return &Service{l: l, history: history.New(l), ext: external.New(l, PreparedKinds(l)...)}
}

func (s *Service) delegations(ctx context.Context, db bun.IDB, template string, party coin.PartyID, keep func(MintingDelegation) bool) ([]MintingDelegation, error) {
	return MintingDelegationsIn(ctx, s.l, db, template, party, keep)
}

// MintingDelegationProposals lists the proposals naming delegate.
func (s *Service) MintingDelegationProposals(ctx context.Context, delegate coin.PartyID) ([]MintingDelegation, error) {
	return s.delegations(ctx, s.l.DB(), TemplateMintingDelegationProposal, delegate, func(d MintingDelegation) bool { return d.Delegate == delegate })
}

// MintingDelegations lists the active delegations naming delegate.
func (s *Service) MintingDelegations(ctx context.Context, delegate coin.PartyID) ([]MintingDelegation, error) {
	return s.delegations(ctx, s.l.DB(), TemplateMintingDelegation, delegate, func(d MintingDelegation) bool { return d.Delegate == delegate })
}

// ActiveMintingDelegations lists every unexpired delegation: reward
// collection mints each such beneficiary's coupons into the beneficiary's
// holdings (see the core's undelegatedExternalParties).
func (s *Service) ActiveMintingDelegations(ctx context.Context) ([]MintingDelegation, error) {
	now := s.l.Now()
	return s.delegations(ctx, s.l.DB(), TemplateMintingDelegation, "", func(d MintingDelegation) bool { return d.ExpiresAt.After(now) })
}

// activeDelegationContract loads an active contract of template naming
// delegate; anything else is ErrNotFound, so other parties' contracts are
// not revealed.
func (s *Service) activeDelegationContract(ctx context.Context, db bun.IDB, template string, cid coin.ContractID, delegate coin.PartyID) (MintingDelegation, error) {
	c, err := store.ContractByID(ctx, db, cid)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return MintingDelegation{}, err
	}
	if err == nil && c.TemplateID == template && c.ArchivedOffset == nil {
		d, err := MintingDelegationView(s.l, c)
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
	return MintingDelegation{}, problem(fault.ErrNotFound, "this %s is no longer active (it was accepted, rejected or withdrawn meanwhile); reload the page", what)
}

// AcceptMintingDelegationProposal accepts a proposal naming delegate: it
// archives the proposal and any delegation of the same beneficiary to
// delegate, and creates the new MintingDelegation. An expired proposal or
// an unknown beneficiary is refused.
func (s *Service) AcceptMintingDelegationProposal(ctx context.Context, delegate coin.PartyID, cid coin.ContractID) (coin.ContractID, error) {
	l := s.l
	var out coin.ContractID
	err := l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		p, err := s.activeDelegationContract(ctx, x.DB(), TemplateMintingDelegationProposal, cid, delegate)
		if err != nil {
			return err
		}
		if err := x.LockParties(ctx, p.Beneficiary); err != nil {
			return err
		}
		if _, err := store.PartyByID(ctx, x.DB(), p.Beneficiary); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return problem(fault.ErrConflict, "the beneficiary %s is not a party of this network, so the proposal cannot be accepted; reject it", p.Beneficiary)
			}
			return err
		}
		if !p.ExpiresAt.After(l.Now()) {
			return problem(fault.ErrExpired, "the proposal expired at %s; reject it, and ask the beneficiary for a new one", ledger.FormatTime(p.ExpiresAt))
		}
		old, err := s.delegations(ctx, x.DB(), TemplateMintingDelegation, p.Beneficiary, func(d MintingDelegation) bool {
			return d.Beneficiary == p.Beneficiary && d.Delegate == delegate
		})
		if err != nil {
			return err
		}
		if err := x.Begin(ctx, "minting-delegation-accept"); err != nil {
			return err
		}
		x.Archive(cid)
		for _, d := range old {
			x.Archive(d.Contract.ContractID)
		}
		out = x.Create(TemplateMintingDelegation, MintingDelegationPayload(l.DSO(), MintingDelegation{
			Beneficiary: p.Beneficiary, Delegate: delegate, ExpiresAt: p.ExpiresAt, MergeLimit: p.MergeLimit,
		}), p.Beneficiary, delegate)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("accept minting delegation proposal %s: %w", cid, err)
	}
	return out, nil
}

// RejectMintingDelegationProposal archives a proposal naming delegate.
func (s *Service) RejectMintingDelegationProposal(ctx context.Context, delegate coin.PartyID, cid coin.ContractID) error {
	return s.archiveDelegation(ctx, "minting-delegation-reject", TemplateMintingDelegationProposal, delegate, cid)
}

// WithdrawMintingDelegation archives an active delegation naming delegate.
func (s *Service) WithdrawMintingDelegation(ctx context.Context, delegate coin.PartyID, cid coin.ContractID) error {
	return s.archiveDelegation(ctx, "minting-delegation-withdraw", TemplateMintingDelegation, delegate, cid)
}

func (s *Service) archiveDelegation(ctx context.Context, kind, template string, delegate coin.PartyID, cid coin.ContractID) error {
	err := s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		if _, err := s.activeDelegationContract(ctx, x.DB(), template, cid, delegate); err != nil {
			return err
		}
		if err := x.Begin(ctx, kind); err != nil {
			return err
		}
		x.Archive(cid)
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
	"CollectRewards": true, ledger.MergeHistorySubtype: true, WalletMergeHistorySubtype: true, MintingMergeHistorySubtype: true,
}

// DelegateActivity lists, newest first, up to n of the latest things the
// validator did for beneficiary as its delegate: reward minting (rows with
// the DSO as counterparty) and merges (rows with the operator). Each side
// is read from its latest page of history only, so older activity behind
// many other rows is not shown.
func (s *Service) DelegateActivity(ctx context.Context, beneficiary coin.PartyID, n int) ([]history.Item, error) {
	var out []history.Item
	for _, by := range []coin.PartyID{s.l.DSO(), s.l.Operator()} {
		items, err := s.history.List(ctx, beneficiary, history.Query{PageSize: 100, Counterparty: by})
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			if delegateActivitySubtypes[it.Subtype] {
				out = append(out, it)
			}
		}
	}
	slices.SortFunc(out, func(a, b history.Item) int { return cmp.Compare(b.ID, a.ID) })
	return out[:min(n, len(out))], nil
}

// problem is a *fault.Problem of sentinel kind.
func problem(kind error, format string, args ...any) error {
	return &fault.Problem{Err: kind, Msg: fmt.Sprintf(format, args...)}
}

// OperatorOnly refuses (ErrForbidden) any party but the validator
// operator's: the operator's pages (minting delegations, whose proposals
// always name the operator as delegate) answer only to it, so a user who
// opens one is told so rather than shown an empty operator page.
func (s *Service) OperatorOnly(party coin.PartyID) error {
	if party == s.l.Operator() {
		return nil
	}
	return &fault.Problem{Err: fault.ErrForbidden, Msg: "this page is for the validator operator"}
}
