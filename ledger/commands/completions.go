package commands

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
)

// Completions are the Ledger API's record of each command's outcome
// (POST /v2/commands/completions): a success is written in the same
// change as the command's effects, at its update's offset; a rejection in
// a short change of its own, an update with no events, so it has an
// offset too and the completions, like the update log they ride, are
// ordered by offset and pruned with it.

// Completion is one command's outcome.
type Completion struct {
	UserID       string
	CommandID    string
	SubmissionID string
	ActAs        []coin.PartyID
	// Code is the gRPC status code: 0 for success.
	Code int
	// Message is Canton's "ERROR_ID(category,correlation): cause" of a
	// failure; empty on success.
	Message string

	// Exercise is the command's root exercise, stored with a success
	// (exercises.go); nil for a create.
	Exercise *Exercise

	// Set by the ledger when the completion is stored.
	Offset     int64
	UpdateID   string // empty for a failure
	RecordTime time.Time
}

// Bounds of a completion's fields before it is stored.
const (
	// MaxCompletionActAs bounds a command's actAs parties.
	MaxCompletionActAs = 64
	// MaxCompletionMessage bounds a failure's message (longer ones are
	// cut, as the cause is for people).
	MaxCompletionMessage = 2000
	// MaxCompletionsPerUser bounds the completions kept per user; pruning
	// drops the oldest beyond it.
	MaxCompletionsPerUser = 10000
)

// Check bounds c and cuts an overlong message.
func (c *Completion) Check() error {
	for _, f := range []struct{ name, v string }{{"userId", c.UserID}, {"commandId", c.CommandID}, {"submissionId", c.SubmissionID}} {
		if err := bounds.CheckID(f.name, f.v); err != nil {
			return err
		}
	}
	if c.UserID == "" || c.CommandID == "" {
		return fault.Invalid("commandId", "a completion needs its user and command id")
	}
	if len(c.ActAs) == 0 || len(c.ActAs) > MaxCompletionActAs {
		return fault.Invalid("actAs", "a completion needs 1 to %d parties, not %d", MaxCompletionActAs, len(c.ActAs))
	}
	c.Message = strings.ReplaceAll(strings.ToValidUTF8(c.Message, "\uFFFD"), "\x00", "")
	if len(c.Message) > MaxCompletionMessage {
		cut := MaxCompletionMessage
		for cut > 0 && !utf8.RuneStart(c.Message[cut]) {
			cut--
		}
		c.Message = c.Message[:cut]
	}
	return nil
}

// Rejecting is c checked as a rejected command's completion (Code set),
// for the core's RecordCompletion to store in a change of its own. A
// success is never recorded so: it is written with the command's effects
// (Command).
func Rejecting(c Completion) (Completion, error) {
	if err := c.Check(); err != nil {
		return c, err
	}
	if c.Code == 0 {
		return c, fault.Invalid("code", "a rejection's completion needs a non-zero status code")
	}
	return c, nil
}

// Row is c's row at offset, with update (empty on failure) and exercise
// (the exercise as stored, JSON).
func (c *Completion) Row(offset int64, update string, at time.Time, exercise string) store.Completion {
	ps := make([]string, len(c.ActAs))
	for i, p := range c.ActAs {
		ps[i] = string(p)
	}
	return store.Completion{
		OffsetID: offset, UserID: c.UserID, CommandID: c.CommandID, ActAs: strings.Join(ps, ","),
		SubmissionID: c.SubmissionID, UpdateID: update, StatusCode: int64(c.Code), Message: c.Message, RecordTime: at,
		Exercise: exercise,
	}
}
