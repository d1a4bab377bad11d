package ledger

import "github.com/ccwallet/ccwallet/coin"

// Canton's admin-workflow Ping, which the wallet SDK creates to try
// signing and onboarding (createPingCommand): a contract the initiator
// signs and the responder observes. Canton's ping service answers only
// the pings its own admin API started, so a client's ping stays active.

// Ping templates: Canton 3.3's AdminWorkflows package and 3.4's builtin.
const (
	TemplatePing        = "#AdminWorkflows:Canton.Internal.Ping:Ping"
	TemplatePingBuiltin = "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping"
)

// Ping is a ping's payload.
type Ping struct {
	ID        string       `json:"id"`
	Initiator coin.PartyID `json:"initiator"`
	Responder coin.PartyID `json:"responder"`
}
