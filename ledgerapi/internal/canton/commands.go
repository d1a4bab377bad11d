package canton

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/ccwallet/ccwallet/coin"
)

// DisclosedContract is a contract a command discloses (JsCommands').
type DisclosedContract struct {
	TemplateID       string `json:"templateId"`
	ContractID       string `json:"contractId"`
	CreatedEventBlob string `json:"createdEventBlob"`
	SynchronizerID   string `json:"synchronizerId"`
}

// ExerciseCommand is a command's ExerciseCommand.
type ExerciseCommand struct {
	TemplateID     string          `json:"templateId"`
	ContractID     string          `json:"contractId"`
	Choice         string          `json:"choice"`
	ChoiceArgument json.RawMessage `json:"choiceArgument"`
}

// FormatTime renders a timestamp as the JSON API does: ISO 8601 UTC,
// microseconds, trailing zeros trimmed.
func FormatTime(t time.Time) string {
	return t.UTC().Truncate(time.Microsecond).Format(time.RFC3339Nano)
}

// SortedParties are the parties' ids, sorted, each once.
func SortedParties(ps []coin.PartyID) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, string(p))
	}
	slices.Sort(out)
	return slices.Compact(out)
}
