package ledger_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/pruning"
	"github.com/ccwallet/ccwallet/store"
)

// TestCompletionsRideTheirChanges: a command run with a completion
// (commands.Completing, passed in its request) writes the completion with its effects,
// at its update's offset and with its update id, on both commit paths (a
// change's saveCommand, the one-step sends' batch); a command that fails
// writes none; RecordCompletion writes a rejection at an offset of its
// own; Completions filters by user and party; pruning removes the
// completions of pruned updates and CapCompletions keeps the newest.
func TestCompletionsRideTheirChanges(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		p, q := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, p, "100")
		completing := func(id string) *commands.Completion {
			t.Helper()
			c, err := commands.Completing(id, commands.Completion{UserID: "u", CommandID: id, SubmissionID: "s-" + id, ActAs: []coin.PartyID{p}})
			if err != nil {
				t.Fatal(err)
			}
			return c.Completion
		}
		createdAt := func(cid coin.ContractID) int64 {
			t.Helper()
			c, err := apiread.New(l).LedgerContractByID(ctx, cid)
			if err != nil {
				t.Fatal(err)
			}
			return c.CreatedOffset
		}
		ti, err := l.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: p, Receiver: q, Amount: coin.MustParse("5"),
			ExecuteBefore: clock.Now().Add(time.Hour), TrackingID: "k1", Completion: completing("c1")})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := l.Preapprovals().Create(ctx, q); err != nil {
			t.Fatal(err)
		}
		sent, err := l.Preapprovals().Send(ctx, ledger.PreapprovalSend{Sender: p, Receiver: q, Amount: coin.MustParse("1"), DeduplicationID: "d2", Completion: completing("c2")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: p, Receiver: q, Amount: coin.MustParse("5"),
			ExecuteBefore: clock.Now().Add(time.Hour), TrackingID: "k1", Completion: completing("c3")}); !errors.Is(err, fault.ErrDuplicate) {
			t.Fatalf("a duplicate: %v", err)
		}
		rej, err := l.RecordCompletion(ctx, commands.Completion{UserID: "u", CommandID: "c3", ActAs: []coin.PartyID{p, q}, Code: 6,
			Message: "DUPLICATE_COMMAND(10,x): " + strings.Repeat("é", commands.MaxCompletionMessage)})
		if err != nil {
			t.Fatal(err)
		}
		if end, _ := apiread.New(l).LedgerEnd(ctx); rej.Offset != end || len(rej.Message) > commands.MaxCompletionMessage {
			t.Errorf("the rejection at %d (ledger end %d), message of %d bytes", rej.Offset, end, len(rej.Message))
		}

		cs, err := apiread.New(l).Completions(ctx, "u", []coin.PartyID{p}, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		wantAt := []int64{createdAt(ti.InstructionCID), createdAt(sent.Outputs[0]), rej.Offset}
		if len(cs) != len(wantAt) {
			t.Fatalf("completions %+v, want %d", cs, len(wantAt))
		}
		for i, c := range cs {
			id, _, err := apiread.New(l).UpdateAt(ctx, c.Offset)
			if err != nil {
				t.Fatal(err)
			}
			success := i < 2
			if c.Offset != wantAt[i] || success && (c.UpdateID != id || c.Code != 0 || c.SubmissionID != "s-"+c.CommandID) ||
				!success && (c.UpdateID != "" || c.Code != 6) || len(c.ActAs) != 1 || c.ActAs[0] != p {
				t.Errorf("completion %d: %+v, want at %d (update %s)", i, c, wantAt[i], id)
			}
		}
		// Filtered by party (actAs cut to them) and user.
		if cs, _ := apiread.New(l).Completions(ctx, "u", []coin.PartyID{q}, 0, 0); len(cs) != 1 || cs[0].CommandID != "c3" || len(cs[0].ActAs) != 1 || cs[0].ActAs[0] != q {
			t.Errorf("q's completions: %+v", cs)
		}
		if cs, _ := apiread.New(l).Completions(ctx, "v", []coin.PartyID{p}, 0, 0); len(cs) != 0 {
			t.Errorf("another user's: %+v", cs)
		}
		if cs, _ := apiread.New(l).Completions(ctx, "u", []coin.PartyID{p}, wantAt[0], 1); len(cs) != 1 || cs[0].Offset != wantAt[1] {
			t.Errorf("after the first, one: %+v", cs)
		}
		// Bounds.
		many := make([]coin.PartyID, commands.MaxCompletionActAs+1)
		for i := range many {
			many[i] = p
		}
		if _, err := commands.Completing("x", commands.Completion{UserID: "u", CommandID: "x", ActAs: many}); !fault.IsValidation(err) {
			t.Errorf("%d parties: %v", len(many), err)
		}
		if _, err := l.RecordCompletion(ctx, commands.Completion{UserID: "u", CommandID: "x", ActAs: []coin.PartyID{p}}); !fault.IsValidation(err) {
			t.Errorf("a rejection without a code: %v", err)
		}

		// The newest kept per user.
		db := ledger.StoreOf(l)
		if n, err := store.CapCompletions(ctx, db, 2); err != nil || n != 1 {
			t.Errorf("cap at 2 removed %d, %v; want 1", n, err)
		}
		// Pruning takes them with their updates.
		closeRounds(t, l)
		clock.Advance(48 * time.Hour)
		closeRounds(t, l)
		if _, err := pruning.New(l).Prune(ctx, time.Hour, 0); err != nil {
			t.Fatal(err)
		}
		pruned, _ := apiread.New(l).PrunedOffset(ctx)
		left, err := db.NewSelect().Table("completions").Where("offset_id <= ?", pruned).Count(ctx)
		if pruned < rej.Offset || err != nil || left != 0 {
			t.Errorf("pruned to %d (the rejection at %d): %d completions left there, %v", pruned, rej.Offset, left, err)
		}
		if _, err := apiread.New(l).Completions(ctx, "u", []coin.PartyID{p}, 0, 0); !errors.Is(err, apiread.ErrPruned) {
			t.Errorf("completions below the pruned offset: %v", err)
		}
		// With a completion after the pruned offset, the page's rows
		// carry the pruning offset: still refused below it.
		later, err := l.RecordCompletion(ctx, commands.Completion{UserID: "u", CommandID: "later", ActAs: []coin.PartyID{p}, Code: 5, Message: "no"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := apiread.New(l).Completions(ctx, "u", []coin.PartyID{p}, pruned-1, 0); !errors.Is(err, apiread.ErrPruned) {
			t.Errorf("completions below the pruned offset, one after it: %v", err)
		}
		if got, err := apiread.New(l).Completions(ctx, "u", []coin.PartyID{p}, pruned, 0); err != nil || len(got) != 1 || got[0].Offset != later.Offset {
			t.Errorf("completions from the pruned offset: %+v, %v; want the one at %d", got, err, later.Offset)
		}
	})
}
