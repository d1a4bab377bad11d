package apiread

import (
	"context"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/store"
)

// Completions lists user's completions after offset after whose actAs
// includes one of parties, oldest first, at most limit (at most
// MaxAPIPage), each with its actAs cut to those parties. An offset
// below the pruned one is ErrPruned; past the ledger end,
// ErrAfterLedgerEnd.
func (s *Service) Completions(ctx context.Context, user string, parties []coin.PartyID, after int64, limit int) ([]commands.Completion, error) {
	cs, _, err := s.CompletionsPage(ctx, user, parties, after, limit)
	return cs, err
}

// CompletionsPage is Completions with the ledger end the page was read up
// to (the stable end), for the caller's checkpoint. A reader already at
// the end, as a client waiting for its command's completion mostly is,
// costs one read of the end.
func (s *Service) CompletionsPage(ctx context.Context, user string, parties []coin.PartyID, after int64, limit int) ([]commands.Completion, int64, error) {
	// Only up to the stable end: a reader that moves past a completion
	// must not skip one of a lower offset that commits later.
	upto, err := s.LedgerEnd(ctx)
	if err != nil {
		return nil, 0, err
	}
	return s.completionsUpTo(ctx, user, parties, after, limit, upto)
}

// CompletionsPageKnown is CompletionsPage for a reader that polls the
// ledger end meanwhile (the completions stream, whose hub reads it every
// poll period, and reads again when it moved): it reads up to the end
// this process knows without a read of its own (store.DB.KnownEnd) when
// that covers after and every completion of user this process
// committed, which is the stream a wallet SDK opens per transfer after
// its command committed here. What another replica committed since the
// last poll comes with the next.
func (s *Service) CompletionsPageKnown(ctx context.Context, user string, parties []coin.PartyID, after int64, limit int) ([]commands.Completion, int64, error) {
	if known := s.l.DB().KnownEnd(); known > 0 && after <= known && s.l.CompletionMark(user) <= known {
		return s.completionsUpTo(ctx, user, parties, after, limit, known)
	}
	return s.CompletionsPage(ctx, user, parties, after, limit)
}

// completionsUpTo is CompletionsPage up to the stable end upto.
func (s *Service) completionsUpTo(ctx context.Context, user string, parties []coin.PartyID, after int64, limit int, upto int64) ([]commands.Completion, int64, error) {
	db := s.l.DB()
	var err error
	if after == upto {
		// Nothing after it, and an offset at the end is neither pruned
		// nor past the end.
		return nil, upto, nil
	}
	// Below the stable end it is not after the ledger end, which need not
	// be read again (a completions stream per transfer, as the wallet SDK
	// opens, reads twice per transfer), and the rows come with the
	// pruning offset.
	checked := after > upto || after < 0
	if checked {
		if _, err = checkOffset(ctx, db, "beginExclusive", after); err != nil {
			return nil, 0, err
		}
	}
	if limit <= 0 || limit > MaxAPIPage {
		limit = MaxAPIPage
	}
	want := map[coin.PartyID]bool{}
	for _, p := range parties {
		want[p] = true
	}
	var out []commands.Completion
	for len(out) < limit {
		rows, pruned, err := store.CompletionsAfter(ctx, db, user, after, upto, MaxAPIPage)
		if err != nil {
			return nil, 0, err
		}
		if !checked && after < pruned {
			return nil, 0, prunedBefore("beginExclusive", after, pruned)
		}
		checked = true
		for _, r := range rows {
			after = r.OffsetID
			var actAs []coin.PartyID
			for _, p := range store.ParsePartyList(r.ActAs) {
				if want[p] {
					actAs = append(actAs, p)
				}
			}
			if len(actAs) == 0 {
				continue
			}
			out = append(out, commands.Completion{
				UserID: r.UserID, CommandID: r.CommandID, SubmissionID: r.SubmissionID, ActAs: actAs, Code: int(r.StatusCode),
				Message: r.Message, Offset: r.OffsetID, UpdateID: r.UpdateID, RecordTime: r.RecordTime,
			})
			if len(out) == limit {
				break
			}
		}
		if len(rows) < MaxAPIPage {
			break
		}
	}
	return out, upto, nil
}

// CompletionStored reports whether the completion of user's command
// commandID submitted as submissionID is stored (committed): the
// submission has completed, successfully or not.
func (s *Service) CompletionStored(ctx context.Context, user, commandID, submissionID string) (bool, error) {
	return store.CompletionExists(ctx, s.l.DB(), user, commandID, submissionID)
}
