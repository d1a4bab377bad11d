// Package shared holds what the web wallet (handlers/ui) and the JSON APIs
// (handlers/api) both use, and nothing either owns alone: the one table
// from errors to HTTP statuses (Status, WriteError), and who the caller is
// (Subject, the party a request acts for, ActingAs).
package shared

import (
	"context"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/impersonation"
	"github.com/ccwallet/ccwallet/web"
)

// Subject is the authenticated user name (the token's sub).
func Subject(ctx context.Context) string {
	c, _ := web.ClaimsFrom(ctx)
	return c.Subject
}

// partyKey carries the caller's party: the web wallet's onboarded puts a
// user's own there, ActingAs the party an admin acts as.
type partyKey struct{}

// WithParty returns ctx carrying the caller's party.
func WithParty(ctx context.Context, p coin.PartyID) context.Context {
	return context.WithValue(ctx, partyKey{}, p)
}

// Party is the party WithParty put in ctx, if any.
func Party(ctx context.Context) (coin.PartyID, bool) {
	p, ok := ctx.Value(partyKey{}).(coin.PartyID)
	return p, ok
}

// ActingAs checks that user may act as party (devnet.Service.Impersonate)
// and returns ctx marked for it: the ledger records user in acted_by, and
// the party is the caller's (Party), as the web wallet puts a user's own.
// The JSON APIs and the web wallet's "view as" share it.
func ActingAs(ctx context.Context, dev *devnet.Service, user string, party coin.PartyID) (context.Context, error) {
	if err := dev.Impersonate(ctx, user, party); err != nil {
		return ctx, err
	}
	return WithParty(impersonation.ActingAs(ctx, user), party), nil
}
