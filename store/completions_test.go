package store_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
)

// TestCompletionExerciseStaysInRow: a completion's exercise (3-5 KB of
// JSON for a token-standard transfer) is stored compressed in its row,
// never out of line in the TOAST table, which cost two more rows and
// index entries per completion (migration 0439), and reads back exactly.
// Nor do its ids go there: with the exercise kept in the row, Postgres
// moved every other text longer than a TOAST pointer (the parties, the
// update and submission ids, the user and command ids of the lengths
// real clients send) out of line first, a TOAST row and index entry
// each (migration 0441).
func TestCompletionExerciseStaysInRow(t *testing.T) {
	ctx := context.Background()
	db := ledgertest.DB(t, store.Postgres)
	if err := store.InsertRound(ctx, db, &store.Round{Number: 1, Price: coin.MustParse("0.005")}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(`{"choice":"TransferFactory_Transfer","choiceArgument":{"context":[`)
	for i := range 40 {
		// Contract ids are hashes: they compress little, as in the SDK row.
		fmt.Fprintf(&b, `{"tag":"AV_ContractId","value":"00%x","key":"splice.lfdecentralizedtrust.org/ctx-%d"},`, sha256.Sum256([]byte{byte(i)}), i)
	}
	b.WriteString(`{}]}}`)
	exercise := b.String()
	if len(exercise) < 4000 {
		t.Fatalf("exercise of %d bytes; want one past TOAST's 2 KB", len(exercise))
	}
	hash := func(s string, i int) string { return fmt.Sprintf("%x", sha256.Sum256(fmt.Append(nil, s, i))) }
	for i := range 20 {
		off := commitUpdate(t, db)
		c := &store.Completion{OffsetID: off, UserID: "8b0c2a4e-" + hash("user", i)[:27], CommandID: "c2f1a6d0-" + hash("command", i)[:27],
			ActAs: ",alice::1220" + hash("party", i) + ",", SubmissionID: "5d1e7f3a-" + hash("submission", i)[:27],
			UpdateID: "1220" + hash("update", i), RecordTime: time.Now().UTC(), Exercise: exercise}
		if err := store.InsertCompletion(ctx, db, c); err != nil {
			t.Fatal(err)
		}
	}
	var toast int64
	err := db.NewRaw("SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE oid = 'completions'::regclass").Scan(ctx, &toast)
	if err != nil {
		t.Fatal(err)
	}
	if toast != 0 {
		t.Errorf("the completions' TOAST table holds %d bytes; want every exercise in its row", toast)
	}
	// lz4 where the server has it (a session can choose it then).
	if _, err := db.ExecContext(ctx, "SET default_toast_compression = lz4"); err == nil {
		var method string
		if err := db.NewRaw("SELECT pg_column_compression(exercise) FROM completions LIMIT 1").Scan(ctx, &method); err != nil || method != "lz4" {
			t.Errorf("the exercise is compressed by %q (%v); want lz4, which this server has", method, err)
		}
	}
	var same int
	err = db.NewRaw("SELECT count(*) FROM completions WHERE exercise = ?", exercise).Scan(ctx, &same)
	if err != nil || same != 20 {
		t.Errorf("%d exercises read back as written (%v), want 20", same, err)
	}
}
