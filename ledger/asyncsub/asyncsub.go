// Package asyncsub is the store of durable asynchronous submissions
// (issue 38): with the Ledger API's durableAsync on, an accepted
// asynchronous submission is kept in a small commit of its own before
// the client is answered {}, and forgotten once
// its outcome is stored: its change with its completion (one transaction,
// as every change), or its rejection's completion. One answered but lost
// in a crash therefore runs after the restart, exactly once: a kept
// submission that has a completion after the ledger end it was kept at
// already ran, and the command's deduplication key keeps its change from
// applying twice. The queue is not a ledger change: it writes no update.
package asyncsub

import (
	"context"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/store"
)

// Service keeps a ledger's asynchronous submissions.
type Service struct{ l *ledger.Ledger }

// New is the store of l's asynchronous submissions.
func New(l *ledger.Ledger) *Service { return &Service{l: l} }

// Submission is a kept asynchronous submission: the request's body
// and what is needed to run it again as its user.
type Submission struct {
	ID int64
	// Owner is the process running it (ledgerapi's boot id).
	Owner string
	// User is the token's user, ActAsClaim its impersonation claim ("").
	User, ActAsClaim string
	RequestID        string
	CommandID        string
	Body             []byte
	// After is the ledger end when it was kept.
	After int64
}

// Keep stores ss in one commit of their own and returns their ids,
// in order (the Ledger API keeps the submissions that arrive together in
// one statement).
func (a *Service) Keep(ctx context.Context, ss ...Submission) ([]int64, error) {
	end, err := store.LedgerEnd(ctx, a.l.DB())
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	rows := make([]store.AsyncSubmission, len(ss))
	for i, s := range ss {
		rows[i] = store.AsyncSubmission{
			Owner: s.Owner, UserID: s.User, ActAsClaim: s.ActAsClaim, RequestID: s.RequestID, CommandID: s.CommandID,
			Body: string(s.Body), AfterOffset: end, CreatedAt: now,
		}
	}
	if err := store.InsertAsyncSubmissions(ctx, a.l.DB(), rows); err != nil {
		return nil, err
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return ids, nil
}

// Forget removes the kept submissions ids: their outcomes are stored.
func (a *Service) Forget(ctx context.Context, ids []int64) error {
	return store.DeleteAsyncSubmissions(ctx, a.l.DB(), ids)
}

// Of lists owner's kept submissions, oldest first, at most limit.
func (a *Service) Of(ctx context.Context, owner string, limit int) ([]Submission, error) {
	rows, err := store.AsyncSubmissionsOf(ctx, a.l.DB(), owner, limit)
	if err != nil {
		return nil, err
	}
	out := make([]Submission, len(rows))
	for i, r := range rows {
		out[i] = Submission{ID: r.ID, Owner: r.Owner, User: r.UserID, ActAsClaim: r.ActAsClaim, RequestID: r.RequestID,
			CommandID: r.CommandID, Body: []byte(r.Body), After: r.AfterOffset}
	}
	return out, nil
}

// SeeOwner records that owner is alive now, and gives it the kept
// submissions of every other owner not seen for staleAfter (a process
// that died), reporting how many it took.
func (a *Service) SeeOwner(ctx context.Context, owner string, staleAfter time.Duration) (int64, error) {
	now := time.Now().UTC()
	if err := store.SeeAsyncOwner(ctx, a.l.DB(), owner, now); err != nil {
		return 0, err
	}
	return store.TakeOverAsyncSubmissions(ctx, a.l.DB(), owner, now.Add(-staleAfter))
}

// Ran reports whether the kept submission s has run: its command
// has a completion (success or rejection) after the ledger end it was
// kept at.
func (a *Service) Ran(ctx context.Context, s Submission, actAs []coin.PartyID) (bool, error) {
	ps := make([]string, len(actAs))
	for i, p := range actAs {
		ps[i] = string(p)
	}
	return store.CompletionOf(ctx, a.l.DB(), s.User, s.CommandID, strings.Join(ps, ","), s.After)
}
