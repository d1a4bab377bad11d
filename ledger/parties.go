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

type installPayload struct {
	DSO          coin.PartyID `json:"dsoParty"`
	Validator    coin.PartyID `json:"validatorParty"`
	EndUserName  string       `json:"endUserName"`
	EndUserParty coin.PartyID `json:"endUserParty"`
}

// createInstall creates the WalletAppInstall and ValidatorRight contracts
// that make a party's wallet usable on this validator.
func (l *Ledger) createInstall(t *txn, name string, party coin.PartyID) coin.ContractID {
	cid := t.create(TemplateWalletAppInstall, installPayload{DSO: l.dso, Validator: l.operator, EndUserName: name, EndUserParty: party}, l.operator, party)
	t.create(TemplateValidatorRight, map[string]any{"dso": l.dso, "user": party, "validator": l.operator}, l.operator, party)
	return cid
}

// Onboard makes name a wallet user. Without party it allocates a fresh
// party (hint = the sanitised user name, namespace = this node's); with one
// it adopts that existing party. Onboarding an onboarded user returns its
// party and changes nothing, so clients may retry.
func (l *Ledger) Onboard(ctx context.Context, name string, party coin.PartyID) (coin.PartyID, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", invalid("name", "must not be empty")
	}
	if len(name) > 255 {
		return "", invalid("name", "must be at most 255 characters")
	}
	var result coin.PartyID
	defer l.users.forget(name) // also after an error: the commit may have happened
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		tx := c.tx
		if err := l.db.LockKey(ctx, tx, "user:"+name); err != nil {
			return err
		}
		u, err := store.UserByName(ctx, tx, name)
		switch {
		case err == nil && u.OffboardedAt.IsZero():
			if party != "" && party != u.PartyID {
				return fmt.Errorf("%w: user %q is already onboarded with party %s", ErrConflict, name, u.PartyID)
			}
			result = u.PartyID
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
			if p, err = l.allocateParty(ctx, tx, name); err != nil {
				return err
			}
		default:
			if _, err := store.PartyByID(ctx, tx, p); err != nil {
				return fmt.Errorf("party %s: %w", p, err)
			}
		}
		install := l.createInstall(t, name, p)
		t.record(p, "notification", "Onboarded", l.operator, coin.Zero, coin.Zero, "", HistoryDetails{Notification: "wallet installed for user " + name})
		if err := l.onboardMergeProposal(ctx, t, p); err != nil { // merge.go
			return err
		}
		t.afterCommit(func(ctx context.Context) error {
			if u != nil {
				u.PartyID, u.InstallCID, u.OffboardedAt = p, install, bun.NullTime{}
				return store.UpdateUser(ctx, tx, u)
			}
			return store.InsertUser(ctx, tx, &store.User{Name: name, PartyID: p, IsAdmin: l.IsAdmin(name), InstallCID: install, CreatedAt: l.now()})
		})
		result = p
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("onboard %q: %w", name, err)
	}
	return result, nil
}

// allocateParty creates a fresh local party for a user name; a numeric
// suffix keeps hints unique when two names sanitise alike.
func (l *Ledger) allocateParty(ctx context.Context, tx bun.IDB, name string) (coin.PartyID, error) {
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

// Offboard archives the user's wallet install. The party and its holdings
// stay; onboarding again restores access.
func (l *Ledger) Offboard(ctx context.Context, name string) error {
	// Forgotten after the commit, so no request of this process acts for
	// the user once Offboard has returned (usercache.go).
	defer l.users.forget(name)
	return l.change(ctx, func(ctx context.Context, c *change) error {
		u, err := store.UserByName(ctx, c.tx, name)
		if err != nil {
			return err
		}
		if !u.OffboardedAt.IsZero() {
			return fmt.Errorf("user %q is not onboarded: %w", name, ErrNotFound)
		}
		if u.IsAdmin && u.PartyID == l.operator {
			return fmt.Errorf("%w: the validator operator's user %q cannot be offboarded", ErrConflict, name)
		}
		t, err := c.begin(ctx, "offboard")
		if err != nil {
			return err
		}
		if u.InstallCID != "" {
			t.archive(u.InstallCID)
		}
		t.afterCommit(func(ctx context.Context) error {
			u.InstallCID, u.OffboardedAt = "", bun.NullTime{Time: l.now()}
			return store.UpdateUser(ctx, c.tx, u)
		})
		return nil
	})
}

// UserInfo is a wallet user as the ledger sees it.
type UserInfo struct {
	Name            string
	Party           coin.PartyID
	Onboarded       bool
	WalletInstalled bool
	IsAdmin         bool
}

// User returns what the ledger knows about a user name. An unknown user is
// not an error: it is a user who has not onboarded yet. An onboarded user
// is cached for Config.UserCacheTTL; see DefaultUserCacheTTL for what that
// means across replicas.
func (l *Ledger) User(ctx context.Context, name string) (UserInfo, error) {
	now := l.cfg.Now()
	if info, ok := l.users.get(name, now); ok {
		return info, nil
	}
	gen := l.users.generation()
	u, err := store.UserByName(ctx, l.db, name)
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
		l.users.put(name, info, now, gen)
	}
	return info, nil
}

// PartyOf returns the party of an onboarded user, or ErrNotFound.
func (l *Ledger) PartyOf(ctx context.Context, name string) (coin.PartyID, error) {
	u, err := l.User(ctx, name)
	if err != nil {
		return "", err
	}
	if !u.Onboarded {
		return "", fmt.Errorf("user %q is not onboarded: %w", name, ErrNotFound)
	}
	return u.Party, nil
}

// Users lists onboarded users.
func (l *Ledger) Users(ctx context.Context) ([]UserInfo, error) {
	us, err := store.Users(ctx, l.db, false)
	if err != nil {
		return nil, err
	}
	out := make([]UserInfo, 0, len(us))
	for _, u := range us {
		out = append(out, UserInfo{Name: u.Name, Party: u.PartyID, Onboarded: true, WalletInstalled: u.InstallCID != "",
			IsAdmin: u.IsAdmin || l.IsAdmin(u.Name)})
	}
	return out, nil
}

// KnownParty reports whether party exists on this ledger. Parties are
// never deleted, so a party seen once is remembered and costs no query.
func (l *Ledger) KnownParty(ctx context.Context, party coin.PartyID) error {
	if _, ok := l.knownParties.Load(party); ok {
		return nil
	}
	if _, err := store.PartyByID(ctx, l.db, party); err != nil {
		return fmt.Errorf("party %s: %w", party, err)
	}
	l.knownParties.Store(party, struct{}{})
	return nil
}
