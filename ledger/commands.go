package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// A command's record inside its change: claiming its deduplication key
// (claimCommand, claimOnce), recording the key with the command's effects
// and its Ledger API completion as a success (saveCommand,
// recordCommand) and a rejection's completion in a change of its own
// (RecordCompletion). What a command, a completion and an exercise are is
// ledger/commands'.

// claimCommand reserves key for this transaction. It returns the stored
// result when the key was used before (the caller answers with it or with
// fault.ErrDuplicate), and fault.ErrInFlight when another transaction holds the key
// right now, so concurrent duplicates get 429 instead of queuing. A key
// whose command has committed is a duplicate even while a later duplicate
// holds its lock for a moment: "in flight" would send a client to wait
// for a completion that came long ago.
func (l *Ledger) claimCommand(ctx context.Context, tx bun.Tx, key string) (*store.Command, error) {
	ok, err := l.db.TryLockKey(ctx, tx, "cmd:"+key)
	if err != nil {
		return nil, err
	}
	c, err := store.CommandByKey(ctx, tx, key)
	if !ok {
		if err == nil {
			return c, nil
		}
		return nil, fmt.Errorf("%w: a command with the same id is being processed", fault.ErrInFlight)
	}
	if err == nil {
		return c, nil
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	return nil, err
}

// saveCommand records cmd's key with its result in the same transaction
// as its effect and, for a Ledger API command, its completion as a
// success at t's offset.
func (l *Ledger) saveCommand(ctx context.Context, t *txn, cmd commands.Command, party coin.PartyID, kind, result string) error {
	off := t.offset
	if err := store.InsertCommand(ctx, t.tx, &store.Command{DedupKey: cmd.Key, Party: party, Kind: kind, OffsetID: &off, Result: result, CreatedAt: t.now}); err != nil {
		return err
	}
	if c := cmd.Completion; c != nil {
		row := c.Row(off, t.update, t.now, t.exerciseJSON(c))
		t.completedBy = append(t.completedBy, c.UserID)
		return store.InsertCompletion(ctx, t.tx, &row)
	}
	return nil
}

// recordCommand is saveCommand riding t's commit batch: cmd's key's
// result is this transaction's update id, and its completion, if any, is
// written with it. The insert fails the commit (rolling the effect back)
// if the key was used meanwhile.
func (t *changes) recordCommand(cmd commands.Command, party coin.PartyID, kind string) {
	t.commands = append(t.commands, store.Command{DedupKey: cmd.Key, Party: party, Kind: kind, Result: t.update, CreatedAt: t.now})
	if c := cmd.Completion; c != nil {
		t.completions = append(t.completions, c.Row(0, t.update, t.now, t.exerciseJSON(c)))
		t.completedBy = append(t.completedBy, c.UserID)
	}
}

// claimOnce claims the deduplication key (none when empty) inside tx: a
// key used before fails with fault.ErrDuplicate.
func (l *Ledger) claimOnce(ctx context.Context, tx bun.Tx, key string) error {
	if key == "" {
		return nil
	}
	prev, err := l.claimCommand(ctx, tx, key)
	if err != nil {
		return err
	}
	if prev != nil {
		return fmt.Errorf("%w: the command was already executed (%s)", fault.ErrDuplicate, prev.Result)
	}
	return nil
}

// exerciseJSON is c's exercise as stored with the completion, with the
// facts of what t wrote that Config.ExerciseFacts records; "" for none.
func (t *changes) exerciseJSON(c *commands.Completion) string {
	if c == nil || c.Exercise == nil {
		return ""
	}
	e := *c.Exercise
	if len(e.ChoiceArgument) == 0 {
		e.ChoiceArgument = json.RawMessage("{}")
	}
	if e.ActingParties == nil {
		e.ActingParties = []coin.PartyID{}
	}
	if facts := t.l.cfg.ExerciseFacts; facts != nil {
		facts(Written{Round: t.round, Created: t.created, Holdings: t.holdings, History: t.history}, &e)
	} else {
		e.ExerciseResult = json.RawMessage("{}")
	}
	if out, ok := e.AppendJSON(make([]byte, 0, 4096)); ok {
		return string(out)
	}
	out, err := json.Marshal(&e)
	if err != nil {
		return ""
	}
	return string(out)
}

// RecordCompletion stores a rejected command's completion (Code set) in
// a change of its own and returns it with its offset. A success is never
// recorded here: it is written with the command's effects
// (commands.Command).
func (l *Ledger) RecordCompletion(ctx context.Context, c commands.Completion) (commands.Completion, error) {
	c, err := commands.Rejecting(c)
	if err != nil {
		return c, err
	}
	err = l.change(ctx, func(ctx context.Context, ch *change) error {
		t, err := ch.begin(ctx, "command-rejected")
		if err != nil {
			return err
		}
		t.afterCommit(func(ctx context.Context) error {
			c.Offset, c.RecordTime = t.offset, t.now
			row := c.Row(t.offset, "", t.now, "")
			t.completedBy = append(t.completedBy, c.UserID)
			return store.InsertCompletion(ctx, t.tx, &row)
		})
		return nil
	})
	return c, err
}
