// Package userrights owns the Ledger API's user management on the core:
// a user's effective rights (read on every Ledger API call), granting and
// revoking rights, deactivating, offboarding (the admin page's and the
// validator admin API's offboard too), deleting users and creating them
// with rights (Create, Canton's CreateUser, on ledger/users'
// onboarding). A wallet user
// is a ledger user: by default it acts as its party (CanActAs) and a
// wallet admin is ParticipantAdmin; an admin's changes over these defaults are
// rows of user_rights, so a revoked right takes effect on the next call
// (on another replica within the user cache's TTL).
// The kinds of right, their defaults and the check of a grant are here
// (Right, DefaultRights, CheckRights: rights.go), and how the rows apply
// to the defaults (EffectiveRights).
package userrights

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// RightDeactivated marks a deactivated user among its rights rows.
const RightDeactivated = "Deactivated"

// ErrUserNotFound is the ErrNotFound of a user.
var ErrUserNotFound = fmt.Errorf("user: %w", fault.ErrNotFound)

// EffectiveRights applies a user's rights rows to u's defaults
// (DefaultRights).
func EffectiveRights(u ledger.UserInfo, rows []store.UserRight) UserRights {
	var out UserRights
	set := map[Right]bool{}
	for _, r := range DefaultRights(u) {
		set[r] = true
	}
	for _, row := range rows {
		if row.Kind == RightDeactivated {
			out.Deactivated = row.Granted
			continue
		}
		set[Right{Kind: row.Kind, Party: coin.PartyID(row.Party)}] = row.Granted
	}
	for r, on := range set {
		if on {
			out.Rights = append(out.Rights, r)
		}
	}
	slices.SortFunc(out.Rights, func(a, b Right) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Party, b.Party))
	})
	return out
}

// Service is the Ledger API's user management of one ledger.
type Service struct {
	l *ledger.Ledger
}

// New builds l's user management.
func New(l *ledger.Ledger) *Service { return &Service{l: l} }

// problem is a *fault.Problem of sentinel kind.
func problem(kind error, format string, args ...any) error {
	return &fault.Problem{Err: kind, Msg: fmt.Sprintf(format, args...)}
}

// RightsOf returns user u's effective rights (u as User returned it),
// from rows cached as users are (users.Users.RightRows: a change made
// here takes effect on the next call, one made on another replica within
// the user cache's TTL).
func (s *Service) RightsOf(ctx context.Context, u ledger.UserInfo) (UserRights, error) {
	rows, err := users.Of(s.l).RightRows(ctx, u.Name)
	if err != nil {
		return UserRights{}, err
	}
	return EffectiveRights(u, rows), nil
}

// ledgerUser is name as a ledger user: onboarded, or a wallet admin.
func (s *Service) ledgerUser(ctx context.Context, name string) (ledger.UserInfo, error) {
	u, err := users.Of(s.l).Get(ctx, name)
	if err != nil {
		return u, err
	}
	if !u.Onboarded && !u.IsAdmin {
		return u, problem(ErrUserNotFound, "there is no user %s on this participant", name)
	}
	return u, nil
}

// GrantRights grants user name rs and returns the rights it did not
// have before.
func (s *Service) GrantRights(ctx context.Context, name string, rs []Right) ([]Right, error) {
	return s.changeRights(ctx, name, rs, true)
}

// RevokeRights takes rs from user name and returns the rights it had.
func (s *Service) RevokeRights(ctx context.Context, name string, rs []Right) ([]Right, error) {
	return s.changeRights(ctx, name, rs, false)
}

func (s *Service) changeRights(ctx context.Context, name string, rs []Right, grant bool) ([]Right, error) {
	if err := CheckRights(ctx, s.l, rs); err != nil {
		return nil, err
	}
	var changed []Right
	key := users.Of(s.l).Key(name)
	defer users.Of(s.l).ForgetRights(name) // also after an error: the commit may have happened
	err := s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		changed = nil
		u, err := s.ledgerUser(ctx, name)
		if err != nil {
			return err
		}
		// Changes of one user queue.
		if err := x.LockKey(ctx, "user-rights:"+key); err != nil {
			return err
		}
		rows, err := store.UserRightsOf(ctx, x.DB(), key)
		if err != nil {
			return err
		}
		have := EffectiveRights(u, rows)
		defaults := DefaultRights(u)
		for _, r := range rs {
			if have.Has(r) == grant || slices.Contains(changed, r) {
				continue
			}
			if len(rows)+len(changed) >= MaxUserRights && grant {
				return problem(fault.ErrConflict, "user %s has %d rights, the most a user may have", name, MaxUserRights)
			}
			changed = append(changed, r)
			// Back to the default: no row; otherwise a row saying so.
			if slices.Contains(defaults, r) == grant {
				err = store.DeleteUserRight(ctx, x.DB(), key, r.Kind, string(r.Party))
			} else {
				err = store.PutUserRight(ctx, x.DB(), &store.UserRight{UserName: key, Kind: r.Kind, Party: string(r.Party), Granted: grant})
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	return changed, err
}

// SetDeactivated deactivates user name (or activates it again): a
// deactivated user's every Ledger API call is refused.
func (s *Service) SetDeactivated(ctx context.Context, name string, deactivated bool) error {
	defer users.Of(s.l).ForgetRights(name)
	return s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		if _, err := s.ledgerUser(ctx, name); err != nil {
			return err
		}
		if !deactivated {
			return store.DeleteUserRight(ctx, x.DB(), users.Of(s.l).Key(name), RightDeactivated, "")
		}
		return store.PutUserRight(ctx, x.DB(), &store.UserRight{UserName: users.Of(s.l).Key(name), Kind: RightDeactivated, Granted: true})
	})
}

// Offboard archives the contracts that make the user's wallet usable on
// this validator (WalletAppInstall and ValidatorRight), as the real
// validator's offboardUser does; nothing else of the user's party is
// archived: its holdings, offers, preapproval and merge delegation stay.
// From then on the wallet stops acting for the party: every page and call
// of the user answers "not onboarded", and the automations that run the
// user's wallet (merging, auto-accept, sweep) skip it. The user's login is
// the identity provider's: it stays, so the user may onboard again
// (POST /v0/register), which restores the same party.
func (s *Service) Offboard(ctx context.Context, name string) error {
	l := s.l
	// Forgotten after the commit, so no request of this process acts for
	// the user once Offboard has returned.
	defer users.Of(l).Forget(name)
	return l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		u, err := store.UserByName(ctx, x.DB(), users.Of(l).Key(name))
		if errors.Is(err, store.ErrNotFound) {
			return problem(fault.ErrNotFound, "there is no user %s on this validator; check the user ID", name)
		}
		if err != nil {
			return err
		}
		if !u.OffboardedAt.IsZero() {
			return problem(fault.ErrNotFound, "the user %s is not onboarded on this validator; there is nothing to offboard", name)
		}
		if u.IsAdmin && u.PartyID == l.Operator() {
			return problem(fault.ErrConflict, "the user %s is the validator operator's own, whom the validator needs: it cannot be offboarded", name)
		}
		if err := x.Begin(ctx, "offboard"); err != nil {
			return err
		}
		if u.InstallCID != "" {
			x.Archive(u.InstallCID)
		}
		rights, err := store.ActiveContractsByTemplate(ctx, x.DB(), ledger.TemplateValidatorRight, u.PartyID)
		if err != nil {
			return err
		}
		for _, r := range rights {
			x.Archive(r.ContractID)
		}
		x.AfterCommit(func(ctx context.Context) error {
			u.InstallCID, u.OffboardedAt = "", bun.NullTime{Time: l.Now()}
			return store.UpdateUser(ctx, x.DB(), u)
		})
		return nil
	})
}

// DeleteUser deletes a Ledger API user: the wallet user is offboarded
// (Offboard) and its rights changes forgotten.
func (s *Service) DeleteUser(ctx context.Context, name string) error {
	u, err := s.ledgerUser(ctx, name)
	if err != nil {
		return err
	}
	if u.Onboarded {
		if err := s.Offboard(ctx, name); err != nil {
			return err
		}
	}
	defer users.Of(s.l).ForgetRights(name)
	return s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		return store.DeleteUserRights(ctx, x.DB(), users.Of(s.l).Key(name))
	})
}
