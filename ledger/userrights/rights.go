package userrights

import (
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

// The kinds of a user's right, their defaults and the check of a grant,
// which granting, revoking and CreateUser (Create) share.

// The kinds of right (Canton's Right.kind cases served).
const (
	RightCanActAs          = "CanActAs"
	RightCanReadAs         = "CanReadAs"
	RightCanReadAsAnyParty = "CanReadAsAnyParty"
	RightParticipantAdmin  = "ParticipantAdmin"
	// RightCanExecuteAsAnyParty (Canton 3.4) lets a user execute a
	// prepared transaction that any party signed.
	RightCanExecuteAsAnyParty = "CanExecuteAsAnyParty"
)

// ErrPartyNotFound is the ErrNotFound of a right's party.
var ErrPartyNotFound = fmt.Errorf("party: %w", fault.ErrNotFound)

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

// DefaultRights are u's rights before any change: CanActAs its party when
// onboarded, ParticipantAdmin when an admin.
func DefaultRights(u ledger.UserInfo) []Right {
	var rs []Right
	if u.Onboarded {
		rs = append(rs, Right{RightCanActAs, u.Party})
	}
	if u.IsAdmin {
		rs = append(rs, Right{Kind: RightParticipantAdmin})
	}
	return rs
}

// CheckRights bounds and checks rights to grant or revoke: known kinds, a
// known party for the party kinds and none for the others.
func CheckRights(ctx context.Context, l *ledger.Ledger, rs []Right) error {
	if len(rs) > MaxUserRights {
		return fault.Invalid("rights", "at most %d rights at once, not %d", MaxUserRights, len(rs))
	}
	for i, r := range rs {
		field := fmt.Sprintf("rights[%d]", i)
		switch r.Kind {
		case RightCanActAs, RightCanReadAs:
			if _, err := coin.ParsePartyID(string(r.Party)); err != nil {
				return fault.Invalid(field, "%v", err)
			}
			if err := l.KnownParty(ctx, r.Party); err != nil {
				if errors.Is(err, store.ErrNotFound) {
					return problem(ErrPartyNotFound, "%s: party %s is not known to this participant; allocate it first", field, r.Party)
				}
				return err
			}
		case RightCanReadAsAnyParty, RightParticipantAdmin, RightCanExecuteAsAnyParty:
			if r.Party != "" {
				return fault.Invalid(field, "%s takes no party", r.Kind)
			}
		default:
			return fault.Invalid(field, "%q cannot be granted here: give CanActAs, CanReadAs, CanReadAsAnyParty, CanExecuteAsAnyParty or ParticipantAdmin", r.Kind)
		}
	}
	return nil
}

// Create onboards user name as Canton's CreateUser does with the
// rights the request gives: the user acts as party (allocated when
// empty) and holds rs besides, granted in the same change, so a refused
// right creates no user and a created user has all of them. rs are
// checked as a grant's are (CanActAs and CanReadAs of known parties,
// CanReadAsAnyParty, CanExecuteAsAnyParty, ParticipantAdmin).
func (s *Service) Create(ctx context.Context, name string, party coin.PartyID, rs []Right) (users.OnboardResult, error) {
	if err := CheckRights(ctx, s.l, rs); err != nil {
		return users.OnboardResult{}, err
	}
	var then func(ctx context.Context, tx bun.IDB, party coin.PartyID) error
	if len(rs) > 0 {
		then = func(ctx context.Context, tx bun.IDB, party coin.PartyID) error {
			return s.putNewRights(ctx, tx, name, party, rs)
		}
	}
	return users.Of(s.l).OnboardWith(ctx, name, party, then)
}

// putNewRights writes the rows of rs that a user name just onboarded
// with party does not hold by default.
func (s *Service) putNewRights(ctx context.Context, tx bun.IDB, name string, party coin.PartyID, rs []Right) error {
	have := DefaultRights(ledger.UserInfo{Name: name, Party: party, Onboarded: true, IsAdmin: users.Of(s.l).IsAdmin(name)})
	for _, r := range rs {
		if (UserRights{Rights: have}).Has(r) {
			continue
		}
		have = append(have, r)
		if err := store.PutUserRight(ctx, tx, &store.UserRight{UserName: users.Of(s.l).Key(name), Kind: r.Kind, Party: string(r.Party), Granted: true}); err != nil {
			return err
		}
	}
	return nil
}
