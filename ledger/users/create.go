package users

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/store"
)

// Create onboards user name as Canton's CreateUser does with the
// rights the request gives: the user acts as party (allocated when
// empty) and holds rs besides, granted in the same change, so a refused
// right creates no user and a created user has all of them. rs are
// checked as a grant's are (CanActAs and CanReadAs of known parties,
// CanReadAsAnyParty, CanExecuteAsAnyParty, ParticipantAdmin).
func (us Users) Create(ctx context.Context, name string, party coin.PartyID, rs []ledger.Right) (OnboardResult, error) {
	if err := ledger.CheckRights(ctx, us.l, rs); err != nil {
		return OnboardResult{}, err
	}
	return us.onboard(ctx, name, party, rs)
}

// putNewRights writes the rows of rs that a user name just onboarded
// with party does not hold by default.
func (us Users) putNewRights(ctx context.Context, tx bun.IDB, name string, party coin.PartyID, rs []ledger.Right) error {
	have := ledger.DefaultRights(ledger.UserInfo{Name: name, Party: party, Onboarded: true, IsAdmin: us.l.IsAdmin(name)})
	for _, r := range rs {
		if (ledger.UserRights{Rights: have}).Has(r) {
			continue
		}
		have = append(have, r)
		if err := store.PutUserRight(ctx, tx, &store.UserRight{UserName: us.Key(name), Kind: r.Kind, Party: string(r.Party), Granted: true}); err != nil {
			return err
		}
	}
	return nil
}
