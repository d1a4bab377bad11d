package ledgerapi

import (
	"sync"
)

// inFlight tracks the submissions this server is running, by change id
// (user, actAs, commandId), with their submission ids, as Canton's
// in-flight submission tracker does: another submission of a change that
// is still running is SUBMISSION_ALREADY_IN_FLIGHT naming the running
// one's submission id in the error's context (existingSubmissionId,
// "Some(id)"), whose completion the wallet SDK then waits for. Another
// replica's submissions are caught by the ledger's own key lock
// (ledger.ErrInFlight), without the id.
type inFlight struct {
	mu sync.Mutex
	m  map[string]string
}

// claim registers key as running under submissionID; when it runs
// already, it returns false and the running one's submission id.
func (f *inFlight) claim(key, submissionID string) (existing string, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id, running := f.m[key]; running {
		return id, false
	}
	if f.m == nil {
		f.m = map[string]string{}
	}
	f.m[key] = submissionID
	return "", true
}

// release ends key's run.
func (f *inFlight) release(key string) {
	f.mu.Lock()
	delete(f.m, key)
	f.mu.Unlock()
}

// inFlightError is SUBMISSION_ALREADY_IN_FLIGHT for sb, whose change runs
// under the submission id existing, in Canton's words and context.
func inFlightError(sb *submission, existing string) error {
	e := cantonErr(codeInFlight, "The command %q of user %q acting as %v is already being processed (submission %q); wait for its completion",
		sb.commandID, sb.completion.UserID, sb.actAs, existing)
	opt := "None"
	if existing != "" {
		opt = "Some(" + existing + ")"
	}
	e.context = map[string]string{"existingSubmissionId": opt}
	return e
}
