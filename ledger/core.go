package ledger

import (
	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/ttlcache"
	"github.com/ccwallet/ccwallet/store"
)

// Core is the seam through which the workflows that keep the core's own
// books, not money, live in packages of their own (ledger/users: who
// acts on the ledger; ledger/validators: the network's other
// validators): the state of one validator's view that they share with
// the core (the caches it forgets on a restore, the key space of its
// users, its configuration, its identity: validators.go), and the
// core's steps they run inside their changes (Install, EnsureAdmins).
// Ledger.Core is the one way to it; a money workflow needs none of it
// (Tx and workflow.go's reads are theirs).
type Core struct{ l *Ledger }

// Core returns l's books, for the workflow packages that keep them.
func (l *Ledger) Core() Core { return Core{l} }

// Config is the configuration l was opened with (Now, the clock the
// caches measure their TTL on, is set).
func (c Core) Config() Config { return c.l.cfg }

// UserCache is the per-process cache of the onboarded users, by key
// (UserKey); the core forgets it on a restore (usercache.go).
func (c Core) UserCache() *ttlcache.Cache[string, UserInfo] { return c.l.users }

// RightsCache is the per-process cache of the users' rights rows, by key
// (UserKey); the core forgets it on a restore.
func (c Core) RightsCache() *ttlcache.Cache[string, []store.UserRight] { return c.l.rights }

// Install creates, in x's update, the WalletAppInstall and ValidatorRight
// contracts that make party's wallet usable for user name on this
// validator, and returns the install's contract id.
func (c Core) Install(x *Tx, name string, party coin.PartyID) coin.ContractID {
	return c.install(x.t(), name, party)
}

// installPayload is Splice.Wallet.Install:WalletAppInstall's payload.
type installPayload struct {
	DSO          coin.PartyID `json:"dsoParty"`
	Validator    coin.PartyID `json:"validatorParty"`
	EndUserName  string       `json:"endUserName"`
	EndUserParty coin.PartyID `json:"endUserParty"`
}

// install is Install in t (also the wallet admins' at open, ensureAdmins).
func (c Core) install(t *txn, name string, party coin.PartyID) coin.ContractID {
	l := c.l
	cid := t.create(TemplateWalletAppInstall, installPayload{DSO: l.dso, Validator: l.operator, EndUserName: name, EndUserParty: party}, l.operator, party)
	t.create(TemplateValidatorRight, map[string]any{"dso": l.dso, "user": party, "validator": l.operator}, l.operator, party)
	return cid
}
