package ledger

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// The Ledger API's users and rights. A wallet user is a ledger user: by
// default it acts as its party (CanActAs) and a wallet admin is
// ParticipantAdmin. An admin grants and revokes rights over these defaults
// and deactivates users; the changes are rows of user_rights, read on
// every call, so a revoked right takes effect on the next one.

// The kinds of right (Canton's Right.kind cases served).
const (
	RightCanActAs          = "CanActAs"
	RightCanReadAs         = "CanReadAs"
	RightCanReadAsAnyParty = "CanReadAsAnyParty"
	RightParticipantAdmin  = "ParticipantAdmin"
	// RightCanExecuteAsAnyParty (Canton 3.4) lets a user execute a
	// prepared transaction that any party signed.
	RightCanExecuteAsAnyParty = "CanExecuteAsAnyParty"
	// rightDeactivated marks a deactivated user among its rights rows.
	rightDeactivated = "Deactivated"
)

// ErrUserNotFound and ErrPartyNotFound are the ErrNotFound of a user and
// of a right's party.
var (
	ErrUserNotFound  = fmt.Errorf("user: %w", ErrNotFound)
	ErrPartyNotFound = fmt.Errorf("party: %w", ErrNotFound)
)

// MaxUserRights bounds a user's rights, and the rights of one request.
const MaxUserRights = 1000

// Right is one right of a user; Party is empty for the party-less kinds.
type Right struct {
	Kind  string
	Party coin.PartyID
}

// UserRights are a user's effective rights.
type UserRights struct {
	Rights      []Right // sorted by kind, then party
	Deactivated bool
}

// Has reports whether the rights hold r.
func (u UserRights) Has(r Right) bool { return slices.Contains(u.Rights, r) }

// defaultRights are u's rights before any change: CanActAs its party when
// onboarded, ParticipantAdmin when an admin.
func defaultRights(u UserInfo) []Right {
	var rs []Right
	if u.Onboarded {
		rs = append(rs, Right{RightCanActAs, u.Party})
	}
	if u.IsAdmin {
		rs = append(rs, Right{Kind: RightParticipantAdmin})
	}
	return rs
}

// effectiveRights applies rows to u's defaults.
func effectiveRights(u UserInfo, rows []store.UserRight) UserRights {
	var out UserRights
	set := map[Right]bool{}
	for _, r := range defaultRights(u) {
		set[r] = true
	}
	for _, row := range rows {
		if row.Kind == rightDeactivated {
			out.Deactivated = row.Granted
			continue
		}
		set[Right{row.Kind, coin.PartyID(row.Party)}] = row.Granted
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

// RightsOf returns user u's effective rights (u as User returned it).
func (l *Ledger) RightsOf(ctx context.Context, u UserInfo) (UserRights, error) {
	rows, err := store.UserRightsOf(ctx, l.db, l.userKey(u.Name))
	if err != nil {
		return UserRights{}, err
	}
	return effectiveRights(u, rows), nil
}

// ledgerUser is name as a ledger user: onboarded, or a wallet admin.
func (l *Ledger) ledgerUser(ctx context.Context, name string) (UserInfo, error) {
	u, err := l.User(ctx, name)
	if err != nil {
		return u, err
	}
	if !u.Onboarded && !u.IsAdmin {
		return u, problem(ErrUserNotFound, "there is no user %s on this participant", name)
	}
	return u, nil
}

// checkRights bounds and checks rights to grant or revoke: known kinds, a
// known party for the party kinds and none for the others.
func (l *Ledger) checkRights(ctx context.Context, rs []Right) error {
	if len(rs) > MaxUserRights {
		return invalid("rights", "at most %d rights at once, not %d", MaxUserRights, len(rs))
	}
	for i, r := range rs {
		field := fmt.Sprintf("rights[%d]", i)
		switch r.Kind {
		case RightCanActAs, RightCanReadAs:
			if _, err := coin.ParsePartyID(string(r.Party)); err != nil {
				return invalid(field, "%v", err)
			}
			if err := l.KnownParty(ctx, r.Party); err != nil {
				if errors.Is(err, store.ErrNotFound) {
					return problem(ErrPartyNotFound, "%s: party %s is not known to this participant; allocate it first", field, r.Party)
				}
				return err
			}
		case RightCanReadAsAnyParty, RightParticipantAdmin, RightCanExecuteAsAnyParty:
			if r.Party != "" {
				return invalid(field, "%s takes no party", r.Kind)
			}
		default:
			return invalid(field, "%q cannot be granted here: give CanActAs, CanReadAs, CanReadAsAnyParty, CanExecuteAsAnyParty or ParticipantAdmin", r.Kind)
		}
	}
	return nil
}

// GrantRights grants user name rs and returns the rights it did not
// have before.
func (l *Ledger) GrantRights(ctx context.Context, name string, rs []Right) ([]Right, error) {
	return l.changeRights(ctx, name, rs, true)
}

// RevokeRights takes rs from user name and returns the rights it had.
func (l *Ledger) RevokeRights(ctx context.Context, name string, rs []Right) ([]Right, error) {
	return l.changeRights(ctx, name, rs, false)
}

func (l *Ledger) changeRights(ctx context.Context, name string, rs []Right, grant bool) ([]Right, error) {
	if err := l.checkRights(ctx, rs); err != nil {
		return nil, err
	}
	var changed []Right
	key := l.userKey(name)
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		changed = nil
		u, err := l.ledgerUser(ctx, name)
		if err != nil {
			return err
		}
		// Changes of one user queue.
		if err := l.db.LockKey(ctx, c.tx, "user-rights:"+key); err != nil {
			return err
		}
		rows, err := store.UserRightsOf(ctx, c.tx, key)
		if err != nil {
			return err
		}
		have := effectiveRights(u, rows)
		defaults := defaultRights(u)
		for _, r := range rs {
			if have.Has(r) == grant || slices.Contains(changed, r) {
				continue
			}
			if len(rows)+len(changed) >= MaxUserRights && grant {
				return problem(ErrConflict, "user %s has %d rights, the most a user may have", name, MaxUserRights)
			}
			changed = append(changed, r)
			// Back to the default: no row; otherwise a row saying so.
			if slices.Contains(defaults, r) == grant {
				err = store.DeleteUserRight(ctx, c.tx, key, r.Kind, string(r.Party))
			} else {
				err = store.PutUserRight(ctx, c.tx, &store.UserRight{UserName: key, Kind: r.Kind, Party: string(r.Party), Granted: grant})
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
func (l *Ledger) SetDeactivated(ctx context.Context, name string, deactivated bool) error {
	return l.change(ctx, func(ctx context.Context, c *change) error {
		if _, err := l.ledgerUser(ctx, name); err != nil {
			return err
		}
		if !deactivated {
			return store.DeleteUserRight(ctx, c.tx, l.userKey(name), rightDeactivated, "")
		}
		return store.PutUserRight(ctx, c.tx, &store.UserRight{UserName: l.userKey(name), Kind: rightDeactivated, Granted: true})
	})
}

// DeleteUser deletes a Ledger API user: the wallet user is offboarded
// (Offboard) and its rights changes forgotten.
func (l *Ledger) DeleteUser(ctx context.Context, name string) error {
	u, err := l.ledgerUser(ctx, name)
	if err != nil {
		return err
	}
	if u.Onboarded {
		if err := l.Offboard(ctx, name); err != nil {
			return err
		}
	}
	return l.change(ctx, func(ctx context.Context, c *change) error {
		return store.DeleteUserRights(ctx, c.tx, l.userKey(name))
	})
}
