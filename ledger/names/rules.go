package names

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
)

// AnsRules is the network's AnsRules contract.
func (s *Service) AnsRules(ctx context.Context) (ledger.Contract, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, s.l.DB(), ledger.TemplateAnsRules, "")
	if err != nil {
		return ledger.Contract{}, err
	}
	if len(cs) == 0 {
		return ledger.Contract{}, fmt.Errorf("AnsRules: %w", fault.ErrNotFound)
	}
	return s.l.ContractView(&cs[0]), nil
}
