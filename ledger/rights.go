package ledger

import (
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
// every call, so a revoked right takes effect on the next one. Reading
// and changing them, and how the rows apply to the defaults, is
// ledger/userrights'; the core keeps the kinds, the defaults and the
// check, which ledger/users' Create and onboarding use.

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
var ErrPartyNotFound = fmt.Errorf("party: %w", ErrNotFound)

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

// checkRights bounds and checks rights to grant or revoke: known kinds, a
// known party for the party kinds and none for the others.
func checkRights(ctx context.Context, l *Ledger, rs []Right) error {
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
