package ledgerapi

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
)

// TestCompletionJSONAsMap: a completion's value encodes to the bytes
// encoding/json wrote for it when it was a map (names sorted), for a
// success and a failure whose message needs escaping.
func TestCompletionJSONAsMap(t *testing.T) {
	for _, c := range []commands.Completion{
		{CommandID: "cmd-1", UserID: "alice", SubmissionID: "s-1", UpdateID: "1220ab", Offset: 42,
			ActAs: []coin.PartyID{"alice::1220aa", "bob::1220bb"}, RecordTime: time.Date(2026, 11, 30, 12, 0, 0, 123456000, time.UTC)},
		{CommandID: "cmd-<2>", UserID: "u&v", Code: 9, Message: "INSUFFICIENT_FUNDS(\"x\"): <none> & é", Offset: 7,
			ActAs: []coin.PartyID{}, RecordTime: time.Unix(0, 0).UTC()},
	} {
		actAs := make([]string, len(c.ActAs))
		for i, p := range c.ActAs {
			actAs[i] = string(p)
		}
		unknown := map[string]any{"fields": map[string]any{}}
		old := map[string]any{
			"commandId": c.CommandID,
			"status":    map[string]any{"code": c.Code, "message": c.Message, "details": []any{}, "unknownFields": unknown},
			"updateId":  c.UpdateID, "userId": c.UserID, "actAs": actAs, "submissionId": c.SubmissionID,
			"deduplicationPeriod": map[string]any{"DeduplicationDuration": map[string]any{"value": map[string]any{
				"seconds": commands.DeduplicationWindow, "nanos": 0, "unknownFields": unknown}}},
			"offset":           c.Offset,
			"synchronizerTime": syncTime{"global::1220cc", canton.FormatTime(c.RecordTime)},
		}
		want, _ := json.Marshal(old)
		got, err := json.Marshal(completionJSON(c, "global::1220cc"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("completion:\n got %s\nwant %s", got, want)
		}
	}
}
