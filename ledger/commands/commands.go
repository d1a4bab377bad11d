// Package commands owns the shapes of a command the ledger records, as
// Canton's command service has them: the key a command is deduplicated
// by and how long it is remembered (Command, DeduplicationWindow), the
// Ledger API's record of a command's outcome (Completion, its bounds,
// Completing and Rejecting) and the root exercise it rides (Exercise). It
// is a leaf: it imports the store's row of a completion and ledger/bounds
// and ledger/fault, never the core. The core writes them inside a
// change (ledger's commands.go: claiming a key, recording it with the
// command's effects, a rejection's change of its own).
package commands

// DeduplicationWindow is how long a command, tracking or deduplication id
// is remembered (the real wallet's deduplicationDuration).
const DeduplicationWindow = 24 * 60 * 60 // seconds; see PruneCommands

// Command is what an entry point that records a command is given: the
// key the command is deduplicated by and, for a Ledger API submission,
// its completion (Completing; nil for the wallet API, the web wallet and
// the automations). The two travel together to the change that records
// the key (the core's saveCommand, Tx.SaveCommand, a one-step send's
// record), which writes the completion as a success with the command's
// effects, at its update's offset. Passing a Command is how a caller says
// where its completion goes: no context carries one.
type Command struct {
	Key        string
	Completion *Completion
}

// Completing is the Ledger API's command under key whose success writes
// completion c: c is checked (its ids and actAs bounded) and made a
// success's.
func Completing(key string, c Completion) (Command, error) {
	if err := c.Check(); err != nil {
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
