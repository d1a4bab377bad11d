// Package impersonation owns the mark on a request's context that an
// admin acts as another party (ActingAs, ActorOf). On a development
// network an admin may act as any party (a local user's, the
// validator's, an external one), to try an app as its users would
// without their keys or logins. Every update made so carries the admin
// in acted_by, which the update stream and the history show; the core
// reads the mark when it writes an update. The rule of who may
// (ledger/devnet's Impersonate) refuses it on a production ledger,
// whatever a caller sends. It imports nothing of the ledger.
package impersonation

import (
	"context"
)

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
