package ledger

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
)

// Impersonation: on a development network an admin may act as any party
// (a local user's, the validator's, an external one), to try an app as
// its users would without their keys or logins. Every update made so
// carries the admin in acted_by, which the update stream and the history
// show. A production ledger refuses it here, whatever a caller sends.

type actorKey struct{}

// ActingAs returns ctx marked as an admin (actor) acting as another
// party: each ledger change made with it records actor in its update's
// acted_by. Callers check the impersonation with Impersonate first.
func ActingAs(ctx context.Context, actor string) context.Context {
	return context.WithValue(ctx, actorKey{}, actor)
}

// ActorOf is the actor ActingAs put in ctx, "" for none.
func ActorOf(ctx context.Context) string {
	a, _ := ctx.Value(actorKey{}).(string)
	return a
}

// Impersonate checks that user may act as party: only on a development
// network, only a wallet admin, only a party this ledger knows. It is the
// one rule; the JSON APIs (a token's ccwallet_act_as claim) and the web
// wallet's "view as" both ask it on every request.
func (l *Ledger) Impersonate(ctx context.Context, user string, party coin.PartyID) error {
	if _, err := l.Dev(); err != nil {
		return fmt.Errorf("%w: acting as another party is only available on a development network", ErrDisabled)
	}
	if !l.IsAdmin(user) {
		return fmt.Errorf("%w: only a wallet admin may act as another party", ErrForbidden)
	}
	p, err := coin.ParsePartyID(string(party))
	if err != nil {
		return invalid("act_as", "%v", err)
	}
	if err := l.KnownParty(ctx, p); err != nil {
		return err
	}
	return nil
}
