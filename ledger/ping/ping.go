// Package ping is Canton's admin-workflow Ping as the Ledger API creates
// it (the wallet SDK's createPingCommand): a contract the initiator signs
// and the responder observes. Its templates and payload stay in the core
// (ledger.Ping), whose reads show it.
package ping

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
)

// Service creates pings on a ledger.
type Service struct{ l *ledger.Ledger }

// New is l's pings.
func New(l *ledger.Ledger) *Service { return &Service{l: l} }

// Create creates the initiator's ping of the responder as template
// (ledger.TemplatePing or TemplatePingBuiltin), once per cmd's key, with
// cmd's completion.
func (s *Service) Create(ctx context.Context, template string, p ledger.Ping, cmd ledger.Command) (coin.ContractID, error) {
	if template != ledger.TemplatePing && template != ledger.TemplatePingBuiltin {
		return "", ledger.Invalid("templateId", "%s is not a ping template", template)
	}
	if err := ledger.CheckID("id", p.ID); err != nil {
		return "", err
	}
	cid, err := ledger.CreateContract(ctx, s.l, "ping", cmd, template, p, p.Initiator, p.Responder)
	if err != nil {
		return "", fmt.Errorf("ping %s: %w", p.Responder, err)
	}
	return cid, nil
}
