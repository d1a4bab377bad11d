package devnet

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/users"
)

// Impersonate checks that user may act as party: only on a development
// network, only a wallet admin, only a party this ledger knows. It is the
// one rule; the JSON APIs (a token's ccwallet_act_as claim) and the web
// wallet's "view as" both ask it on every request, then mark the request
// with impersonation.ActingAs, which the core records in acted_by.
func (s *Service) Impersonate(ctx context.Context, user string, party coin.PartyID) error {
	if _, err := s.l.Dev(); err != nil {
		return fmt.Errorf("%w: acting as another party is only available on a development network", fault.ErrDisabled)
	}
	if !users.Of(s.l).IsAdmin(user) {
		return fmt.Errorf("%w: only a wallet admin may act as another party", fault.ErrForbidden)
	}
	p, err := coin.ParsePartyID(string(party))
	if err != nil {
		return fault.Invalid("act_as", "%v", err)
	}
	if err := s.l.KnownParty(ctx, p); err != nil {
		return err
	}
	return nil
}

// IsAdminAs reports whether user, with a token asking to act as actAs
// ("" for none), has the wallet admin's rights on l. An impersonation
// token acts as its party and only as it (docs/devnet.md): it lists no
// users, grants no rights and reaches no admin endpoint, on the JSON APIs
// and the Ledger API alike.
func IsAdminAs(l *ledger.Ledger, user, actAs string) bool {
	return actAs == "" && users.Of(l).IsAdmin(user)
}
