package names

import (
	"context"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
)

// AnsHook names one of the name service's subscription hooks.
type AnsHook int

// The hooks a subscription's collection calls.
const (
	AnsInitialPaid AnsHook = iota
	AnsRenewalPaid
	AnsExpired
)

// RequestAnsContext records a request for a name as RequestAnsEntry does,
// with reference standing for its subscription request.
func (s *Service) RequestAnsContext(ctx context.Context, r AnsRequest, reference coin.ContractID) (coin.ContractID, error) {
	var cid coin.ContractID
	err := s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		if err := s.checkAnsRequest(ctx, x.DB(), r); err != nil {
			return err
		}
		if err := x.Begin(ctx, "request-ans-entry"); err != nil {
			return err
		}
		var err error
		cid, err = s.app.createAnsContext(ctx, x, r, reference)
		return err
	})
	return cid, err
}

// RunAnsHook runs a hook for the subscription request req in a change of
// its own, as the subscription's collection would in its change.
func (s *Service) RunAnsHook(ctx context.Context, h AnsHook, req coin.ContractID) error {
	return s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		if err := x.Begin(ctx, "ans-hook"); err != nil {
			return err
		}
		switch h {
		case AnsInitialPaid:
			return s.app.InitialPaid(ctx, x, req, "")
		case AnsRenewalPaid:
			return s.app.RenewalPaid(ctx, x, req, "")
		default:
			return s.app.Expired(ctx, x, req, "")
		}
	})
}
