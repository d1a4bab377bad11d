package ledger

import (
	"strings"
)

// Each validator of a network has its own users, as each of LocalNet's
// participants has: the same user ID names a user of the app user's
// validator and, apart, one of the app provider's, each with its own
// party and rights. The users table holds them all, a validator's other
// than the network's first under keys prefixed with its userSpace
// ("hint/"); the prefix never leaves the ledger and ledger/users.

// userSpaceOf is the key prefix of the users of the validator whose
// operator hint is hint.
func userSpaceOf(hint string) string { return hint + "/" }

// UserKey is the key of l's user name in the users and user_rights
// tables.
func (c Core) UserKey(name string) string { return c.l.userSpace + name }

// UserName is the name of l's user stored under key; false when the key
// is another validator's user's.
func (c Core) UserName(key string) (string, bool) {
	l := c.l
	if l.userSpace != "" {
		return strings.CutPrefix(key, l.userSpace)
	}
	for _, v := range l.validators.List() {
		if v.userSpace != "" && strings.HasPrefix(key, v.userSpace) {
			return "", false
		}
	}
	return key, true
}
