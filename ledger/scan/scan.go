// Package scan owns the validator's public reads of the network and of
// itself: the scan proxy's contracts a client needs to build its own
// transactions (AmuletRules, the open rounds, the transfer commands of an
// external sender, as scan serves them) and the node's identity and
// domain data snapshot (nodeinfo.go). It only reads what the core stored.
package scan

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
)

// The reads behind the validator's scan-proxy endpoints (scan-proxy.yaml):
// the contracts a client needs to build its own transactions, as scan
// serves them. The payloads are the ones the ledger stored when it created
// the contracts, the same the registry discloses.

// Service is the scan proxy's and the node's reads of one ledger.
type Service struct{ l *ledger.Ledger }

// New builds l's scan reads.
func New(l *ledger.Ledger) *Service { return &Service{l: l} }

// TransferCommandWindow is how far back transfer-command/status looks, as
// scan does ("created in the last 24h").
const TransferCommandWindow = 24 * time.Hour

// AmuletRules is the network's AmuletRules contract.
func (s *Service) AmuletRules(ctx context.Context) (ledger.Contract, error) {
	c, err := store.ContractByID(ctx, s.l.DB(), s.l.RulesContractID())
	if err != nil {
		return ledger.Contract{}, err
	}
	return s.l.ContractView(c), nil
}

// OpenRoundContracts are the OpenMiningRound contracts of the open rounds
// (OpenRounds decides which), oldest first.
func (s *Service) OpenRoundContracts(ctx context.Context) ([]ledger.Contract, error) {
	rs, err := s.l.Rounds().OpenRounds(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ledger.Contract, 0, len(rs))
	for _, r := range rs {
		c, err := store.ContractByID(ctx, s.l.DB(), r.ContractID)
		if err != nil {
			return nil, err
		}
		out = append(out, s.l.ContractView(c))
	}
	return out, nil
}

// TransferCommandStatus is a TransferCommand and what became of it.
type TransferCommandStatus struct {
	Contract ledger.Contract
	// Status is "created" (waiting to be executed) or "sent" (done).
	// Ours execute in the transaction that creates them, so a command
	// that failed left nothing behind and is never listed.
	Status string
}

// TransferCommands lists sender's TransferCommands with nonce created in
// the last TransferCommandWindow; fault.ErrNotFound when there are none.
func (s *Service) TransferCommands(ctx context.Context, sender coin.PartyID, nonce int64) ([]TransferCommandStatus, error) {
	if nonce < 0 {
		return nil, fault.Invalid("nonce", "must not be negative")
	}
	want := strconv.FormatInt(nonce, 10)
	// The nonce pre-filter keeps the rows read to this nonce's commands.
	cs, err := store.ContractsByTemplateSince(ctx, s.l.DB(), ledger.TemplateTransferCommand, sender, s.l.Now().Add(-TransferCommandWindow), `"nonce":"`+want+`"`)
	if err != nil {
		return nil, err
	}
	var out []TransferCommandStatus
	for i := range cs {
		var p struct {
			Sender coin.PartyID `json:"sender"`
			Nonce  string       `json:"nonce"`
		}
		if err := json.Unmarshal([]byte(cs[i].Payload), &p); err != nil {
			return nil, fmt.Errorf("decode %s: %w", cs[i].ContractID, err)
		}
		if p.Sender != sender || p.Nonce != want {
			continue
		}
		st := "created"
		if cs[i].ArchivedOffset != nil {
			st = "sent"
		}
		out = append(out, TransferCommandStatus{Contract: s.l.ContractView(&cs[i]), Status: st})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: couldn't find transfer command for sender %s with nonce %d created in the last 24h", fault.ErrNotFound, sender, nonce)
	}
	return out, nil
}
