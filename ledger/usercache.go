package ledger

import (
	"time"

	"github.com/ccwallet/ccwallet/coin"
)

// DefaultUserCacheTTL is how long ledger/users' Get and PartyOf trust what they read of
// an onboarded user (Config.UserCacheTTL).
//
// Every authenticated request asks who its caller is, and the answer
// changes only on onboarding and offboarding. This process forgets a user
// the moment it onboards or offboards them, so here an offboarding takes
// effect at once. Another replica on the same database may still let an
// offboarded user act for up to the TTL after the offboarding committed,
// as Canton's participants may (their user management cache keeps an
// entry 5 s after it was read: cache-expiry-after-write-in-seconds).
// Unknown and offboarded users are never cached: a user onboarded on one
// replica can act through every replica at once.
const DefaultUserCacheTTL = 5 * time.Second

// userCacheSize bounds the cached users, and the cached rights. Past it,
// expired entries go first, then arbitrary ones.
const userCacheSize = 10_000

// UserInfo is a wallet user as the ledger sees it (ledger/users reads
// it, through the cache of the onboarded ones).
type UserInfo struct {
	Name            string
	Party           coin.PartyID
	Onboarded       bool
	WalletInstalled bool
	IsAdmin         bool
}
