package ui_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/uptrace/bun"
)

// rowCounter counts the rows the database's SELECTs answer.
type rowCounter struct{ on, rows atomic.Int64 }

func (c *rowCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (c *rowCounter) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if c.on.Load() == 0 || e.Result == nil || !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(e.Query)), "SELECT") {
		return
	}
	if n, err := e.Result.RowsAffected(); err == nil {
		c.rows.Add(n)
	}
}

// TestHomeReadsOnlyTheOutgoingItShows: with 300 transfer instructions
// of her own pending, alice's Home lists the newest 5, says how many
// there are, and reads a page of them with a count, not all 300 (issue
// 38: it read every pending instruction of the party, with its contract,
// on every Home render and live reload).
func TestHomeReadsOnlyTheOutgoingItShows(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		ctx := context.Background()
		alice := e.Wallet(t, "alice", "")
		bob := e.Wallet(t, "bob", "")
		ledgertest.Mint(t, e.L, alice.Party, "1000")
		const n = 300
		var newest coin.ContractID
		for i := range n {
			res, err := e.L.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: alice.Party, Receiver: bob.Party,
				Amount: coin.MustParse("0.0000000001"), Description: "many", ExecuteBefore: e.L.Now().Add(24 * time.Hour)})
			if err != nil {
				t.Fatalf("instruction %d: %v", i, err)
			}
			newest = res.InstructionCID
		}
		var c rowCounter
		//lint:ignore SA1019 WithQueryHook returns a copy; the ledger's own handle must count
		e.L.DB().AddQueryHook(&c)
		c.on.Store(1)
		r := alice.Get("/home/outgoing")
		c.on.Store(0)
		handlerstest.MustHave(t, r, http.StatusOK, "Showing 5 of 300.", string(newest))
		if got := strings.Count(r.Body, `data-kind="instructions"`); got != 5 {
			t.Errorf("Home lists %d instructions, want 5", got)
		}
		if rows := c.rows.Load(); rows > 60 {
			t.Errorf("Home's pending sends read %d rows for %d instructions; want a page (at most 60)", rows, n)
		}
	})
}
