package ledger

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// Users are the wallet users of one validator's ledger: onboarded
// (Onboard, Create; offboarding is ledger/userrights'), read (Get, PartyOf, All) through a
// short cache (usercache.go), and the keys they are stored under
// (validator_users.go); also whether a party exists (KnownParty).
type Users struct{ l *Ledger }

// Users returns l's users.
func (l *Ledger) Users() Users { return Users{l} }

type installPayload struct {
	DSO          coin.PartyID `json:"dsoParty"`
	Validator    coin.PartyID `json:"validatorParty"`
	EndUserName  string       `json:"endUserName"`
	EndUserParty coin.PartyID `json:"endUserParty"`
}

// install creates the WalletAppInstall and ValidatorRight contracts
// that make a party's wallet usable on this validator.
func (us Users) install(t *txn, name string, party coin.PartyID) coin.ContractID {
	l := us.l
	cid := t.create(TemplateWalletAppInstall, installPayload{DSO: l.dso, Validator: l.operator, EndUserName: name, EndUserParty: party}, l.operator, party)
	t.create(TemplateValidatorRight, map[string]any{"dso": l.dso, "user": party, "validator": l.operator}, l.operator, party)
	return cid
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
	return us.onboard(ctx, name, party, nil)
}

// onboard is OnboardUser; a user it onboards also gets rights (checked
// by the caller) in the same change (usercreate.go).
func (us Users) onboard(ctx context.Context, name string, party coin.PartyID, rights []Right) (OnboardResult, error) {
	l := us.l
	name = strings.TrimSpace(name)
	if name == "" {
		return OnboardResult{}, invalid("name", "enter the user's ID")
	}
	if len(name) > 255 {
		return OnboardResult{}, invalid("name", "a user ID has at most 255 characters")
	}
	key, err := us.ownKey(name)
	if err != nil {
		return OnboardResult{}, err
	}
	var result OnboardResult
	defer us.Forget(name) // also after an error: the commit may have happened
	err = l.change(ctx, func(ctx context.Context, c *change) error {
		tx := c.tx
		if err := l.db.LockKey(ctx, tx, "user:"+key); err != nil {
			return err
		}
		u, err := store.UserByName(ctx, tx, key)
		switch {
		case err == nil && u.OffboardedAt.IsZero():
			if party != "" && party != u.PartyID {
				return fmt.Errorf("%w: user %q is already onboarded with party %s", ErrConflict, name, u.PartyID)
			}
			result = OnboardResult{Party: u.PartyID}
			return nil
		case err != nil && !errors.Is(err, store.ErrNotFound):
			return err
		}
		t, err := c.begin(ctx, "onboard")
		if err != nil {
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
		install := us.install(t, name, p)
		t.record(p, HistoryNotification, "Onboarded", l.operator, coin.Zero, coin.Zero, "", HistoryDetails{Notification: "wallet installed for user " + name})
		if err := l.onboardMergeProposal(ctx, t, p); err != nil { // merge.go
			return err
		}
		t.afterCommit(func(ctx context.Context) error {
			if u != nil {
				u.PartyID, u.InstallCID, u.OffboardedAt = p, install, bun.NullTime{}
				return store.UpdateUser(ctx, tx, u)
			}
			return store.InsertUser(ctx, tx, &store.User{Name: key, PartyID: p, IsAdmin: l.IsAdmin(name), InstallCID: install, CreatedAt: l.now()})
		})
		if len(rights) > 0 {
			t.afterCommit(func(ctx context.Context) error { return us.putNewRights(ctx, tx, name, p, rights) })
		}
		result = OnboardResult{Party: p, Created: true}
		return nil
	})
	if err != nil {
		return OnboardResult{}, fmt.Errorf("onboard %q: %w", name, err)
	}
	return result, nil
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
		p, err := coin.NewPartyID(hint, l.namespace)
		if err != nil {
			return "", invalid("name", "cannot derive a party hint: %v", err)
		}
		if _, err := store.PartyByID(ctx, tx, p); errors.Is(err, store.ErrNotFound) {
			return p, store.InsertParty(ctx, tx, &store.Party{PartyID: p, Hint: hint, Kind: "local", CreatedAt: l.now()})
		} else if err != nil {
			return "", err
		}
	}
	return "", fmt.Errorf("%w: no free party hint for %q", ErrConflict, name)
}

// Forget drops what this process remembers of user name (usercache.go:
// the user and its rights rows), after a change of the user's row or
// rights: also after an error, as the commit may have happened.
func (us Users) Forget(name string) {
	key := us.Key(name)
	us.l.users.Forget(key)
	us.l.rights.Forget(key)
}

// UserInfo is a wallet user as the ledger sees it.
type UserInfo struct {
	Name            string
	Party           coin.PartyID
	Onboarded       bool
	WalletInstalled bool
	IsAdmin         bool
}

// Get returns what the ledger knows about a user name. An unknown user is
// not an error: it is a user who has not onboarded yet. An onboarded user
// is cached for Config.UserCacheTTL; see DefaultUserCacheTTL for what that
// means across replicas.
func (us Users) Get(ctx context.Context, name string) (UserInfo, error) {
	l := us.l
	now := l.cfg.Now()
	key, err := us.ownKey(name)
	if err != nil {
		return UserInfo{Name: name}, nil // another validator's: not one of l's
	}
	if info, ok := l.users.Get(key, now); ok {
		return info, nil
	}
	gen := l.users.Generation()
	u, err := store.UserByName(ctx, l.db, key)
	if errors.Is(err, store.ErrNotFound) {
		return UserInfo{Name: name, IsAdmin: l.IsAdmin(name)}, nil
	}
	if err != nil {
		return UserInfo{}, err
	}
	on := u.OffboardedAt.IsZero()
	info := UserInfo{
		Name: name, Party: u.PartyID, Onboarded: on, WalletInstalled: on && u.InstallCID != "",
		IsAdmin: u.IsAdmin || l.IsAdmin(name),
	}
	if on {
		l.users.Put(key, info, now, gen)
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
		return "", fmt.Errorf("user %q is not onboarded: %w", name, ErrNotFound)
	}
	return u.Party, nil
}

// All lists this validator's onboarded users.
func (us Users) All(ctx context.Context) ([]UserInfo, error) {
	l := us.l
	rows, err := store.Users(ctx, l.db, false)
	if err != nil {
		return nil, err
	}
	out := make([]UserInfo, 0, len(rows))
	for _, u := range rows {
		name, ok := us.nameOf(u.Name)
		if !ok {
			continue
		}
		out = append(out, UserInfo{Name: name, Party: u.PartyID, Onboarded: true, WalletInstalled: u.InstallCID != "",
			IsAdmin: u.IsAdmin || l.IsAdmin(name)})
	}
	return out, nil
}

// KnownParty reports whether party exists on this ledger. Parties are
// never deleted, so a party seen once is remembered and costs no query.
func (us Users) KnownParty(ctx context.Context, party coin.PartyID) error {
	l := us.l
	if _, ok := l.knownParties.Load(party); ok {
		return nil
	}
	if _, err := store.PartyByID(ctx, l.db, party); err != nil {
		return fmt.Errorf("party %s: %w", party, err)
	}
	l.knownParties.Store(party, struct{}{})
	return nil
}

// RightRows are user name's rows of user_rights (its changes over the
// default rights; userrights.EffectiveRights applies them). Every Ledger API call
// asks for them, so they are cached as the user is (Config.UserCacheTTL):
// this process forgets them when it changes them (ForgetRights, and on
// onboarding and offboarding), so here a revoked right takes effect on the
// next call; another replica's change shows within the TTL, as Canton's
// own user management cache does (cache-expiry-after-write).
func (us Users) RightRows(ctx context.Context, name string) ([]store.UserRight, error) {
	l := us.l
	key := us.Key(name)
	now := l.cfg.Now()
	if rows, ok := l.rights.Get(key, now); ok {
		return rows, nil
	}
	gen := l.rights.Generation()
	rows, err := store.UserRightsOf(ctx, l.db, key)
	if err != nil {
		return nil, err
	}
	l.rights.Put(key, rows, now, gen)
	return rows, nil
}

// ForgetRights drops what RightRows remembers of user name, after this
// process changed its rows (also after an error: the commit may have
// happened).
func (us Users) ForgetRights(name string) { us.l.rights.Forget(us.Key(name)) }
