package ledger

import (
	"context"
	"errors"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// DeduplicationWindow is how long a command, tracking or deduplication id
// is remembered (the real wallet's deduplicationDuration).
const DeduplicationWindow = 24 * 60 * 60 // seconds; see PruneCommands

// Command is what an entry point that records a command is given: the
// key the command is deduplicated by and, for a Ledger API submission,
// its completion (Completing; nil for the wallet API, the web wallet and
// the automations). The two travel together to the change that records
// the key (saveCommand, Tx.SaveCommand, a one-step send's record), which
// writes the completion as a success with the command's effects, at its
// update's offset. Passing a Command is how a caller says where its
// completion goes: no context carries one.
type Command struct {
	Key        string
	Completion *Completion
}

// Completing is the Ledger API's command under key whose success writes
// completion c: c is checked (its ids and actAs bounded) and made a
// success's.
func Completing(key string, c Completion) (Command, error) {
	if err := checkCompletion(&c); err != nil {
		return Command{}, err
	}
	c.Code, c.Message = 0, ""
	return Command{Key: key, Completion: &c}, nil
}

// Under is c with its key under prefix (an entry point's own key space;
// none when c has no key), and its completion.
func (c Command) Under(prefix string) Command {
	if c.Key != "" {
		c.Key = prefix + c.Key
	}
	return c
}

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
func (l *Ledger) saveCommand(ctx context.Context, t *txn, cmd Command, party coin.PartyID, kind, result string) error {
	off := t.offset
	if err := store.InsertCommand(ctx, t.tx, &store.Command{DedupKey: cmd.Key, Party: party, Kind: kind, OffsetID: &off, Result: result, CreatedAt: t.now}); err != nil {
		return err
	}
	if c := cmd.Completion; c != nil {
		row := completionRow(c, off, t.update, t.now, t.exerciseJSON(c))
		t.completedBy = append(t.completedBy, c.UserID)
		return store.InsertCompletion(ctx, t.tx, &row)
	}
	return nil
}

// recordCommand is saveCommand riding t's commit batch: cmd's key's
// result is this transaction's update id, and its completion, if any, is
// written with it. The insert fails the commit (rolling the effect back)
// if the key was used meanwhile.
func (t *changes) recordCommand(cmd Command, party coin.PartyID, kind string) {
	t.commands = append(t.commands, store.Command{DedupKey: cmd.Key, Party: party, Kind: kind, Result: t.update, CreatedAt: t.now})
	if c := cmd.Completion; c != nil {
		t.completions = append(t.completions, completionRow(c, 0, t.update, t.now, t.exerciseJSON(c)))
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
