// Package users owns the wallet users of one validator's ledger:
// onboarding (Onboard, OnboardUser, and OnboardWith, on which
// userrights.Service.Create, Canton's CreateUser, grants its rights in
// the same change), a user's merge delegation
// proposal made at onboarding when configured, allocating a party
// (AllocateParty), and the reads of who a user is (Get, PartyOf, All;
// whether it is a wallet admin, IsAdmin) and of its rights rows
// (RightRows) through the core's short caches, which this package
// forgets on each change it makes (Forget, ForgetRights). Offboarding, the kinds of right and changing them are
// ledger/userrights'.
//
// The core keeps what it needs at open and on every check of a party
// (ledger.Core: the caches, which a restore clears; the users' key space
// of each validator, UserKey and UserName; the WalletAppInstall a user's
// wallet needs, Install, which the wallet admins get at open; and
// Ledger.KnownParty).
package users

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// Users are the wallet users of one validator's ledger.
type Users struct {
	l    *ledger.Ledger
	core ledger.Core
}

// Of returns l's users.
func Of(l *ledger.Ledger) Users { return Users{l: l, core: l.Core()} }

// IsAdmin reports whether name is one of l's wallet admins (a
// validatorWalletUsers entry).
func (us Users) IsAdmin(name string) bool { return slices.Contains(us.core.Config().AdminUsers, name) }

// Key is the key of l's user name in the users and user_rights tables.
func (us Users) Key(name string) string { return us.core.UserKey(name) }

// ownKey is Key, refusing on the first validator a name that
// would be another validator's user's key.
func (us Users) ownKey(name string) (string, error) {
	key := us.Key(name)
	if _, ok := us.core.UserName(key); !ok {
		return "", fault.Invalid("name", "user IDs starting with %q are another validator's users'; choose another", key[:strings.Index(key, "/")+1])
	}
	return key, nil
}

// Onboard makes name a wallet user. Without party it allocates a fresh
// party (hint = the sanitised user name, namespace = this node's); with one
// it adopts that existing party. Onboarding an onboarded user returns its
// party and changes nothing, so clients may retry.
func (us Users) Onboard(ctx context.Context, name string, party coin.PartyID) (coin.PartyID, error) {
	res, err := us.OnboardUser(ctx, name, party)
	return res.Party, err
}

// OnboardResult is what Onboard did: the user's party, and whether this
// call onboarded the user (false: the user was onboarded already).
type OnboardResult struct {
	Party   coin.PartyID
	Created bool
}

// OnboardUser is Onboard, also telling whether the user was onboarded
// already.
func (us Users) OnboardUser(ctx context.Context, name string, party coin.PartyID) (OnboardResult, error) {
	return us.OnboardWith(ctx, name, party, nil)
}

// OnboardWith is OnboardUser; when it onboards the user, then (unless
// nil) runs in the same change once its update commits, with the user's
// party: e.g. the rights Canton's CreateUser grants
// (userrights.Service.Create).
func (us Users) OnboardWith(ctx context.Context, name string, party coin.PartyID, then func(ctx context.Context, tx bun.IDB, party coin.PartyID) error) (OnboardResult, error) {
	l := us.l
	name = strings.TrimSpace(name)
	if name == "" {
		return OnboardResult{}, fault.Invalid("name", "enter the user's ID")
	}
	if len(name) > 255 {
		return OnboardResult{}, fault.Invalid("name", "a user ID has at most 255 characters")
	}
	key, err := us.ownKey(name)
	if err != nil {
		return OnboardResult{}, err
	}
	var result OnboardResult
	defer us.Forget(name) // also after an error: the commit may have happened
	err = l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		tx := x.DB()
		if err := x.LockKey(ctx, "user:"+key); err != nil {
			return err
		}
		u, err := store.UserByName(ctx, tx, key)
		switch {
		case err == nil && u.OffboardedAt.IsZero():
			if party != "" && party != u.PartyID {
				return fmt.Errorf("%w: user %q is already onboarded with party %s", fault.ErrConflict, name, u.PartyID)
			}
			result = OnboardResult{Party: u.PartyID}
			return nil
		case err != nil && !errors.Is(err, store.ErrNotFound):
			return err
		}
		if err := x.Begin(ctx, "onboard"); err != nil {
			return err
		}
		p := party
		switch {
		case p == "" && u != nil:
			p = u.PartyID // an offboarded user gets its party back
		case p == "":
			if p, err = us.allocateParty(ctx, tx, name); err != nil {
				return err
			}
		default:
			if _, err := store.PartyByID(ctx, tx, p); err != nil {
				return fmt.Errorf("party %s: %w", p, err)
			}
		}
		install := us.core.Install(x, name, p)
		x.Record(p, ledger.HistoryNotification, "Onboarded", l.Operator(), coin.Zero, coin.Zero, "", ledger.HistoryDetails{Notification: "wallet installed for user " + name})
		if err := us.mergeProposal(ctx, x, p); err != nil {
			return err
		}
		x.AfterCommit(func(ctx context.Context) error {
			if u != nil {
				u.PartyID, u.InstallCID, u.OffboardedAt = p, install, bun.NullTime{}
				return store.UpdateUser(ctx, tx, u)
			}
			return store.InsertUser(ctx, tx, &store.User{Name: key, PartyID: p, IsAdmin: us.IsAdmin(name), InstallCID: install, CreatedAt: l.Now()})
		})
		if then != nil {
			x.AfterCommit(func(ctx context.Context) error { return then(ctx, tx, p) })
		}
		result = OnboardResult{Party: p, Created: true}
		return nil
	})
	if err != nil {
		return OnboardResult{}, fmt.Errorf("onboard %q: %w", name, err)
	}
	return result, nil
}

// mergeProposal adds owner's merge delegation proposal to the
// onboarding's update, when configured
// (Config.MergeDelegationAtOnboarding) and owner has none open.
func (us Users) mergeProposal(ctx context.Context, x *ledger.Tx, owner coin.PartyID) error {
	op := us.l.Operator()
	if !us.core.Config().MergeDelegationAtOnboarding || owner == op {
		return nil
	}
	existing, err := store.MergeDelegationsOf(ctx, x.DB(), owner, "")
	if err != nil {
		return err
	}
	for _, m := range existing {
		if m.Status == delegations.MergeActive || m.Status == delegations.MergeProposed {
			return nil
		}
	}
	cid := x.Create(delegations.TemplateMergeDelegationProposal, delegations.MergeProposalPayload(op, owner), owner, op)
	return store.InsertMergeDelegation(ctx, x.DB(), &store.MergeDelegation{
		ContractID: cid, Owner: owner, Operator: op, Status: delegations.MergeProposed, ProposalCID: cid, CreatedAt: x.Now(), UpdatedAt: x.Now(),
	})
}

// allocateParty creates a fresh local party for a user name; a numeric
// suffix keeps hints unique when two names sanitise alike.
func (us Users) allocateParty(ctx context.Context, tx bun.IDB, name string) (coin.PartyID, error) {
	l := us.l
	base := coin.SanitizeHint(name)
	for i := 0; i < 100; i++ {
		hint := base
		if i > 0 {
			hint = fmt.Sprintf("%s-%d", base, i+1)
		}
		p, err := coin.NewPartyID(hint, l.Namespace())
		if err != nil {
			return "", fault.Invalid("name", "cannot derive a party hint: %v", err)
		}
		if _, err := store.PartyByID(ctx, tx, p); errors.Is(err, store.ErrNotFound) {
			return p, store.InsertParty(ctx, tx, &store.Party{PartyID: p, Hint: hint, Kind: "local", CreatedAt: l.Now()})
		} else if err != nil {
			return "", err
		}
	}
	return "", fmt.Errorf("%w: no free party hint for %q", fault.ErrConflict, name)
}

// AllocateParty creates a local party with hint (a fresh one when empty)
// in this node's namespace; a hint in use is a conflict.
func (us Users) AllocateParty(ctx context.Context, hint string) (coin.PartyID, error) {
	l := us.l
	if hint == "" {
		hint = "party-" + ledger.UUIDHex()[:12]
	}
	if err := coin.ValidateHint(hint); err != nil {
		return "", fault.Invalid("partyIdHint", "%v", err)
	}
	p, err := coin.NewPartyID(hint, l.Namespace())
	if err != nil {
		return "", fault.Invalid("partyIdHint", "%v", err)
	}
	err = store.InsertParty(ctx, l.DB(), &store.Party{PartyID: p, Hint: hint, Kind: "local", CreatedAt: l.Now()})
	if errors.Is(err, store.ErrAlreadyExists) {
		return "", fmt.Errorf("%w: party %s already exists", fault.ErrConflict, p)
	}
	return p, err
}

// Forget drops what this process remembers of user name (the core's
// caches: the user and its rights rows), after a change of the user's
// row or rights: also after an error, as the commit may have happened.
func (us Users) Forget(name string) {
	key := us.Key(name)
	us.core.UserCache().Forget(key)
	us.core.RightsCache().Forget(key)
}

// Get returns what the ledger knows about a user name. An unknown user is
// not an error: it is a user who has not onboarded yet. An onboarded user
// is cached for Config.UserCacheTTL; see ledger.DefaultUserCacheTTL for
// what that means across replicas.
func (us Users) Get(ctx context.Context, name string) (ledger.UserInfo, error) {
	l := us.l
	cache := us.core.UserCache()
	now := us.core.Config().Now()
	key, err := us.ownKey(name)
	if err != nil {
		return ledger.UserInfo{Name: name}, nil // another validator's: not one of l's
	}
	if info, ok := cache.Get(key, now); ok {
		return info, nil
	}
	gen := cache.Generation()
	u, err := store.UserByName(ctx, l.DB(), key)
	if errors.Is(err, store.ErrNotFound) {
		return ledger.UserInfo{Name: name, IsAdmin: us.IsAdmin(name)}, nil
	}
	if err != nil {
		return ledger.UserInfo{}, err
	}
	on := u.OffboardedAt.IsZero()
	info := ledger.UserInfo{
		Name: name, Party: u.PartyID, Onboarded: on, WalletInstalled: on && u.InstallCID != "",
		IsAdmin: u.IsAdmin || us.IsAdmin(name),
	}
	if on {
		cache.Put(key, info, now, gen)
	}
	return info, nil
}

// PartyOf returns the party of an onboarded user, or ErrNotFound.
func (us Users) PartyOf(ctx context.Context, name string) (coin.PartyID, error) {
	u, err := us.Get(ctx, name)
	if err != nil {
		return "", err
	}
	if !u.Onboarded {
		return "", fmt.Errorf("user %q is not onboarded: %w", name, fault.ErrNotFound)
	}
	return u.Party, nil
}

// All lists this validator's onboarded users.
func (us Users) All(ctx context.Context) ([]ledger.UserInfo, error) {
	l := us.l
	rows, err := store.Users(ctx, l.DB(), false)
	if err != nil {
		return nil, err
	}
	out := make([]ledger.UserInfo, 0, len(rows))
	for _, u := range rows {
		name, ok := us.core.UserName(u.Name)
		if !ok {
			continue
		}
		out = append(out, ledger.UserInfo{Name: name, Party: u.PartyID, Onboarded: true, WalletInstalled: u.InstallCID != "",
			IsAdmin: u.IsAdmin || us.IsAdmin(name)})
	}
	return out, nil
}

// RightRows are user name's rows of user_rights (its changes over the
// default rights; userrights.EffectiveRights applies them). Every Ledger API call
// asks for them, so they are cached as the user is (Config.UserCacheTTL):
// this process forgets them when it changes them (ForgetRights, and on
// onboarding and offboarding), so here a revoked right takes effect on the
// next call; another replica's change shows within the TTL, as Canton's
// own user management cache does (cache-expiry-after-write).
func (us Users) RightRows(ctx context.Context, name string) ([]store.UserRight, error) {
	cache := us.core.RightsCache()
	key := us.Key(name)
	now := us.core.Config().Now()
	if rows, ok := cache.Get(key, now); ok {
		return rows, nil
	}
	gen := cache.Generation()
	rows, err := store.UserRightsOf(ctx, us.l.DB(), key)
	if err != nil {
		return nil, err
	}
	cache.Put(key, rows, now, gen)
	return rows, nil
}

// ForgetRights drops what RightRows remembers of user name, after this
// process changed its rows (also after an error: the commit may have
// happened).
func (us Users) ForgetRights(name string) { us.core.RightsCache().Forget(us.Key(name)) }
