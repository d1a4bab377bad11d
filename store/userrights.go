package store

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// UserRight is one Ledger API change to a user's rights: a right granted,
// or a default one taken away (Granted false).
type UserRight struct {
	bun.BaseModel `bun:"table:user_rights"`

	UserName string `bun:"user_name,pk"`
	Kind     string `bun:"kind,pk"`
	Party    string `bun:"party,pk"`
	Granted  bool   `bun:"granted"`
}

// UserRightsOf lists user's rights rows. On Postgres its statement is
// prepared once per connection (queryPrepared): a Ledger API call whose
// user's rights are not cached reads them.
func UserRightsOf(ctx context.Context, db bun.IDB, user string) ([]UserRight, error) {
	var rs []UserRight
	ok, err := queryPrepared(ctx, db, &rs, userRightsOfSQL, user)
	if !ok {
		err = db.NewSelect().Model(&rs).Where("user_name = ?", user).Order("kind", "party").Scan(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("rights of %s: %w", user, Normalize(err))
	}
	return rs, nil
}

// userRightsOfSQL is UserRightsOf's statement on Postgres, the one bun
// builds for SQLite.
const userRightsOfSQL = `SELECT user_name, kind, party, granted FROM user_rights WHERE user_name = $1 ORDER BY kind, party`

// PutUserRight inserts r or sets its Granted.
func PutUserRight(ctx context.Context, db bun.IDB, r *UserRight) error {
	_, err := db.NewInsert().Model(r).On("CONFLICT (user_name, kind, party) DO UPDATE").Set("granted = EXCLUDED.granted").Exec(ctx)
	if err != nil {
		return fmt.Errorf("put right %s of %s: %w", r.Kind, r.UserName, Normalize(err))
	}
	return nil
}

// DeleteUserRight removes a rights row (none is no error).
func DeleteUserRight(ctx context.Context, db bun.IDB, user, kind, party string) error {
	_, err := db.NewDelete().Table("user_rights").Where("user_name = ?", user).Where("kind = ?", kind).Where("party = ?", party).Exec(ctx)
	if err != nil {
		return fmt.Errorf("delete right %s of %s: %w", kind, user, Normalize(err))
	}
	return nil
}

// DeleteUserRights removes every rights row of user.
func DeleteUserRights(ctx context.Context, db bun.IDB, user string) error {
	if _, err := db.NewDelete().Table("user_rights").Where("user_name = ?", user).Exec(ctx); err != nil {
		return fmt.Errorf("delete rights of %s: %w", user, Normalize(err))
	}
	return nil
}
