package ledger

import (
	"context"

	"github.com/ccwallet/ccwallet/store"
)

// CompletionStored reports whether the completion of user's command
// commandID submitted as submissionID is stored (committed): the
// submission has completed, successfully or not.
func (l *Ledger) CompletionStored(ctx context.Context, user, commandID, submissionID string) (bool, error) {
	return store.CompletionExists(ctx, l.db, user, commandID, submissionID)
}
