package ledgerapi

import (
	"net/http"
	"sync"

	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
)

// inFlight tracks the submissions this server is running, by change id
// (user, actAs, commandId), with their submission ids, as Canton's
// in-flight submission tracker does: another submission of a change that
// is still running is SUBMISSION_ALREADY_IN_FLIGHT naming the running
// one's submission id in the error's context (existingSubmissionId,
// "Some(id)"), whose completion the wallet SDK then waits for. Another
// replica's submissions are caught by the ledger's own key lock
// (fault.ErrInFlight), without the id.
type inFlight struct {
	mu sync.Mutex
	m  map[string]running
}

// running is a claimed change: its submission id and its user.
type running struct {
	submissionID, user string
}

// claim registers key, a change of user's, as running under
// submissionID; when it runs already, it returns false and the running
// one's submission id.
func (f *inFlight) claim(key, user, submissionID string) (existing string, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r, ok := f.m[key]; ok {
		return r.submissionID, false
	}
	if f.m == nil {
		f.m = map[string]running{}
	}
	f.m[key] = running{submissionID, user}
	return "", true
}

// release ends key's run.
func (f *inFlight) release(key string) {
	f.mu.Lock()
	delete(f.m, key)
	f.mu.Unlock()
}

// runs reports whether a submission of user (by userKey) runs here, for
// a completions read that waits for its caller's (completions.go). The
// running submissions are few (the asynchronous ones at most maxAsync).
func (f *inFlight) runs(user string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.m {
		if r.user == user {
			return true
		}
	}
	return false
}

// inFlightError is SUBMISSION_ALREADY_IN_FLIGHT for sb, whose change runs
// under the submission id existing, in Canton's words and context.
func inFlightError(sb *submission, existing string) error {
	e := canton.Err(canton.CodeInFlight, "The command %q of user %q acting as %v is already being processed (submission %q); wait for its completion",
		sb.commandID, sb.user, sb.actAs, existing)
	opt := "None"
	if existing != "" {
		opt = "Some(" + existing + ")"
	}
	e.Context = map[string]string{"existingSubmissionId": opt}
	return e
}

// stillInFlight is SUBMISSION_ALREADY_IN_FLIGHT for sb while the change's
// running submission, existing, has not completed; nil once its
// completion is stored (it ran, and only its release is to come). It
// decides nothing about duplicates: a submission let through goes to the
// ledger like any later one, and the ledger answers a committed command
// as a duplicate whoever holds its key (claimCommand) and runs a rejected
// one's retry. What only this check knows is whether the in-flight answer
// may name existing: a client told to wait for it reads its completion
// after the ledger end it read before submitting, so existing must not
// have completed by then; not stored now, it was not committed then, and
// the (stable) ledger end was below its offset (store.DB.StableEnd).
// Canton's ledger end likewise passes a completion only once the
// submission has left its in-flight tracker.
func (s *Server) stillInFlight(r *http.Request, sb *submission, existing string) error {
	done, err := s.w.APIRead.CompletionStored(r.Context(), sb.completion.UserID, sb.commandID, existing)
	if err != nil {
		return err
	}
	if done {
		return nil
	}
	return inFlightError(sb, existing)
}
