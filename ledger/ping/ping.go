// Package ping is Canton's admin-workflow Ping as the Ledger API creates
// it (the wallet SDK's createPingCommand): a contract the initiator signs
// and the responder observes: its templates and payload (Ping), which
// the Ledger API's reads (ledger/apiread) show, and its creation. Canton's
// ping service answers only the pings its own admin API started, so a
// client's ping stays active.
package ping

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
)

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

// Service creates pings on a ledger.
type Service struct{ l *ledger.Ledger }

// New is l's pings.
func New(l *ledger.Ledger) *Service { return &Service{l: l} }

// Create creates the initiator's ping of the responder as template
// (TemplatePing or TemplatePingBuiltin), once per cmd's key, with
// cmd's completion.
func (s *Service) Create(ctx context.Context, template string, p Ping, cmd commands.Command) (coin.ContractID, error) {
	if template != TemplatePing && template != TemplatePingBuiltin {
		return "", fault.Invalid("templateId", "%s is not a ping template", template)
	}
	if err := bounds.CheckID("id", p.ID); err != nil {
		return "", err
	}
	cid, err := ledger.CreateContract(ctx, s.l, "ping", cmd, template, p, p.Initiator, p.Responder)
	if err != nil {
		return "", fmt.Errorf("ping %s: %w", p.Responder, err)
	}
	return cid, nil
}
