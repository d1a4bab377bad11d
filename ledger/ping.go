package ledger

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
)

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

// CreatePing creates the initiator's ping of the responder as template
// (TemplatePing or TemplatePingBuiltin), once per key.
func (l *Ledger) CreatePing(ctx context.Context, template string, p Ping, key string) (coin.ContractID, error) {
	if template != TemplatePing && template != TemplatePingBuiltin {
		return "", invalid("templateId", "%s is not a ping template", template)
	}
	if err := checkID("id", p.ID); err != nil {
		return "", err
	}
	cid, err := l.createContract(ctx, "ping", key, template, p, p.Initiator, p.Responder)
	if err != nil {
		return "", fmt.Errorf("ping %s: %w", p.Responder, err)
	}
	return cid, nil
}

// pingInitiator is a ping's signatory.
func pingInitiator(b []byte) []coin.PartyID {
	var p Ping
	_ = json.Unmarshal(b, &p)
	return []coin.PartyID{p.Initiator}
}
