package ui_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/pending"
)

// tradeEnv is a UI env whose ledger runs on a settable clock, with a venue.
type tradeEnv struct {
	*handlerstest.UIEnv
	clock *ledgertest.Clock
	venue coin.PartyID
}

func forTradeEngine(t *testing.T, fn func(t *testing.T, e *tradeEnv)) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			clock := ledgertest.NewClock()
			l := ledgertest.New(t, engine, ledgertest.Options{Clock: clock})
			e := &tradeEnv{UIEnv: handlerstest.NewUIEnvOn(t, l, nil, func(*handlers.Config) {}), clock: clock}
			e.venue = ledgertest.Party(t, l)
			fn(t, e)
		})
	}
}

// trade is an OTC trade at the venue, approved by its traders and ready
// to allocate for an hour, to settle within two; legs are "sender
// receiver amount" by leg id.
func (e *tradeEnv) trade(t *testing.T, legs map[string][3]string) coin.ContractID {
	t.Helper()
	ctx := context.Background()
	tl := map[string]allocationdata.TransferLeg{}
	var traders []coin.PartyID
	for id, l := range legs {
		tl[id] = allocationdata.TransferLeg{Sender: coin.PartyID(l[0]), Receiver: coin.PartyID(l[1]), Amount: coin.MustParse(l[2]),
			InstrumentID: ledger.InstrumentRef{Admin: e.L.DSO(), ID: ledger.InstrumentID}}
		traders = append(traders, coin.PartyID(l[0]), coin.PartyID(l[1]))
	}
	p, err := e.W.Allocations.ProposeTrade(ctx, traders, allocationdata.OTCTradeProposal{Venue: e.venue, TransferLegs: tl, Approvers: traders}, commands.Command{})
	if err != nil {
		t.Fatal(err)
	}
	now := e.clock.Now()
	tr, err := e.W.Allocations.InitiateTradeSettlement(ctx, []coin.PartyID{e.venue}, p.Created, ledger.FormatTime(now.Add(time.Hour)), ledger.FormatTime(now.Add(2*time.Hour)), commands.Command{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Created
}

func mustDone(t *testing.T, r handlerstest.Resp, code string) {
	t.Helper()
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/allocations?done="+code {
		t.Fatalf("status %d location %q, want 303 to /allocations?done=%s: %.500s", r.Status, r.Header.Get("Location"), code, r.Body)
	}
}

var allocRowRe = regexp.MustCompile(`data-testid="(allocations|allocations-finished)-row" data-cid="([^"]+)" data-state="([a-z]*)"`)

// TestUIAllocations: the Allocations page lists the trades a user trades
// in with their legs, venue and deadlines; the user allocates its leg
// (coin locked), once; the venue settles and both see the result with
// exact balances; a pending allocation is withdrawn; a request is
// rejected by a sender only; a passed deadline, a leg of someone else's
// and missing funds are refused in words with nothing changed; Home shows
// a card for a request to allocate, and live updates see trades come.
func TestUIAllocations(t *testing.T) {
	forTradeEngine(t, func(t *testing.T, e *tradeEnv) {
		ctx := context.Background()
		alice := e.Wallet(t, "alice", "100") // 20000 CC
		bob := e.Wallet(t, "bob", "1")       // 200 CC
		a, b := string(alice.Party), string(bob.Party)
		mark, err := pending.New(e.L).Mark(ctx, alice.Party)
		if err != nil {
			t.Fatal(err)
		}
		handlerstest.MustHave(t, alice.Get("/allocations"), http.StatusOK, `aria-current="page" data-testid="nav-allocations"`,
			`data-testid="allocation-requests-empty"`, `data-testid="allocations-empty"`, `hx-get="/allocations/live"`, `data-events="/events"`)

		trade := e.trade(t, map[string][3]string{"leg0": {a, b, "30"}, "leg1": {b, a, "12.5"}})
		if m, err := pending.New(e.L).Mark(ctx, alice.Party); err != nil || m == mark {
			t.Errorf("pending mark %q -> %q (%v): a new trade must wake live updates", mark, m, err)
		}
		page := alice.Get("/allocations")
		handlerstest.MustHave(t, page, http.StatusOK, `data-testid="allocation-request" data-cid="`+string(trade)+`"`, `title="`+string(e.venue)+`"`,
			`data-leg="leg0"`, `data-leg="leg1"`, `action="/allocations/`+string(trade)+`/allocate"`, `name="leg" value="leg0"`,
			`action="/allocations/`+string(trade)+`/reject"`, `data-testid="allocate-before"><time datetime="2026-11-01T13:00:00Z" title="2026-11-01 13:00:00 UTC">`,
			`data-testid="settle-before"><time datetime="2026-11-01T14:00:00Z" title="2026-11-01 14:00:00 UTC">`, `title="30.0000000000 CC"`, `name="csrf_token" value="`+alice.Csrf+`"`)
		if strings.Count(page.Body, `data-testid="allocate"`) != 1 || strings.Contains(page.Body, `value="leg1"`) {
			t.Errorf("alice may allocate only her leg: %.3000s", page.Body)
		}
		handlerstest.MustHave(t, alice.Get("/"), http.StatusOK, `data-kind="allocations" data-cid="`+string(trade)+`"`, `href="/allocations"`,
			`data-testid="incoming-amount" title="30.0000000000 CC"`, `data-testid="incoming-receive" title="12.5000000000 CC"`)
		if got := incoming(alice); len(got["allocations"]) != 1 {
			t.Errorf("alice's cards = %v, want the trade", got)
		}

		// Someone else's leg, and an unknown action: refused, nothing changed.
		handlerstest.MustHave(t, alice.Act(trade, "allocate", "leg1"), http.StatusUnprocessableEntity, "<html", `data-testid="allocations-error"`, "has no leg &#34;leg1&#34; that you send")
		handlerstest.MustHave(t, alice.Act(trade, "allocate", strings.Repeat("x", 5000)), http.StatusUnprocessableEntity, "Must be at most")
		handlerstest.MustHave(t, alice.Act(trade, "allocate", "leg\xff"), http.StatusUnprocessableEntity, "valid UTF-8")
		handlerstest.MustHave(t, alice.Act(trade, "settle", ""), http.StatusNotFound)
		handlerstest.MustHave(t, alice.Act("nonsense", "allocate", "leg0"), http.StatusUnprocessableEntity, "no such allocation or request")

		// Alice allocates without JavaScript: her coin is locked.
		mustDone(t, alice.Act(trade, "allocate", "leg0"), "allocations-allocate")
		if alice.Balance() != "19970.0000000000" || alice.Locked() != "30.0000000000" {
			t.Errorf("alice after allocating: %s available, %s locked", alice.Balance(), alice.Locked())
		}
		page = alice.Get("/allocations?done=allocations-allocate")
		handlerstest.MustHave(t, page, http.StatusOK, `data-testid="flash"`, "Allocated: your coin is locked", `data-testid="leg-allocated"`,
			`data-testid="allocations-row"`, `action="/allocations/`, `/withdraw"`)
		if strings.Contains(page.Body, `data-testid="allocate"`) {
			t.Error("the allocated leg still offers Allocate")
		}
		if got := incoming(alice); len(got["allocations"]) != 0 {
			t.Errorf("alice's cards after allocating = %v", got)
		}
		// Again (a double click, or a stale page): refused in words.
		r := alice.ActHX(trade, "allocate", "leg0")
		handlerstest.MustHave(t, r, http.StatusUnprocessableEntity, `id="allocations-list"`, "You already allocated this leg")
		if strings.Contains(r.Body, "<html") {
			t.Error("an htmx answer is a whole page")
		}
		if alice.Locked() != "30.0000000000" {
			t.Errorf("alice's locked coin after the second allocate = %s", alice.Locked())
		}

		// Bob allocates with htmx: the lists come back saying so.
		r = bob.ActHX(trade, "allocate", "leg1")
		handlerstest.MustHave(t, r, http.StatusOK, `id="allocations-list"`, "Allocated: your coin", `data-testid="leg-allocated"`)
		if r.Header.Get("HX-Trigger") != "wallet-changed" {
			t.Errorf("HX-Trigger = %q", r.Header.Get("HX-Trigger"))
		}

		// The venue settles both legs in one update.
		ids := map[string]coin.ContractID{}
		for _, w := range []*handlerstest.Wallet{alice, bob} {
			as, err := e.W.Allocations.PendingAllocations(ctx, w.Party)
			if err != nil || len(as) != 1 {
				t.Fatalf("%s's pending allocations: %v %v", w.Party, as, err)
			}
			ids[as[0].Spec.TransferLegID] = as[0].Contract.ContractID
		}
		if _, err := e.W.Allocations.SettleTrade(ctx, []coin.PartyID{e.venue}, trade, ids, commands.Command{}); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			w              *handlerstest.Wallet
			balance, other string
		}{{alice, "19982.5000000000", b}, {bob, "217.5000000000", a}} {
			if c.w.Balance() != c.balance || c.w.Locked() != "0.0000000000" {
				t.Errorf("%s after settlement: %s available, %s locked; want %s", c.w.Party, c.w.Balance(), c.w.Locked(), c.balance)
			}
			page := c.w.Get("/allocations/live")
			handlerstest.MustHave(t, page, http.StatusOK, `data-testid="allocation-requests-empty"`, `data-testid="allocations-empty"`, `data-testid="allocations-finished"`)
			rows := allocRowRe.FindAllStringSubmatch(page.Body, -1)
			// Its own leg executed, and the counterparty's it received.
			if len(rows) != 2 || rows[0][3] != "executed" || rows[1][3] != "executed" {
				t.Errorf("%s's finished allocations: %v", c.w.Party, rows)
			}
		}

		// A pending allocation withdrawn: the coin comes back, once.
		second := e.trade(t, map[string][3]string{"leg0": {a, b, "5"}})
		mustDone(t, alice.Act(second, "allocate", "leg0"), "allocations-allocate")
		pending, err := e.W.Allocations.PendingAllocations(ctx, alice.Party)
		if err != nil || len(pending) != 1 {
			t.Fatalf("pending: %v %v", pending, err)
		}
		alloc := pending[0].Contract.ContractID
		handlerstest.MustHave(t, bob.Act(alloc, "withdraw", ""), http.StatusUnprocessableEntity, "not one you send")
		mustDone(t, alice.Act(alloc, "withdraw", ""), "allocations-withdraw")
		if alice.Balance() != "19982.5000000000" || alice.Locked() != "0.0000000000" {
			t.Errorf("alice after withdrawing: %s available, %s locked", alice.Balance(), alice.Locked())
		}
		handlerstest.MustHave(t, alice.Act(alloc, "withdraw", ""), http.StatusUnprocessableEntity, "no longer pending")
		handlerstest.MustHave(t, alice.Get("/allocations"), http.StatusOK, `data-cid="`+string(alloc)+`" data-state="withdrawn"`)

		// Rejected: a receiver may not, a sender may; the trade is off.
		handlerstest.MustHave(t, bob.Act(second, "reject", ""), http.StatusUnprocessableEntity, "not yours to reject")
		mustDone(t, alice.Act(second, "reject", ""), "allocations-reject")
		handlerstest.MustHave(t, alice.Get("/allocations?done=allocations-reject"), http.StatusOK, "Allocation request rejected", `data-testid="allocation-requests-empty"`)
		handlerstest.MustHave(t, bob.Act(second, "allocate", "leg0"), http.StatusUnprocessableEntity, "no longer open")

		// Left past its settlement deadline, an allocation says its coin
		// comes back, and the expiry automation returns it.
		fourth := e.trade(t, map[string][3]string{"leg0": {a, b, "2"}})
		mustDone(t, alice.Act(fourth, "allocate", "leg0"), "allocations-allocate")
		e.clock.Advance(2 * time.Hour)
		handlerstest.MustHave(t, alice.Get("/allocations"), http.StatusOK, `data-testid="allocation-overdue"`, `data-testid="allocation-closed"`)
		if n, err := e.W.Allocations.ExpireAllocations(ctx); err != nil || n != 1 {
			t.Fatalf("expired %d, %v", n, err)
		}
		page = alice.Get("/allocations")
		handlerstest.MustHave(t, page, http.StatusOK, `data-testid="allocations-empty"`, `data-state="expired"`)
		if alice.Balance() != "19982.5000000000" || alice.Locked() != "0.0000000000" {
			t.Errorf("alice after expiry: %s available, %s locked", alice.Balance(), alice.Locked())
		}
		mustDone(t, alice.Act(fourth, "reject", ""), "allocations-reject")

		// More than bob has: refused, nothing locked.
		third := e.trade(t, map[string][3]string{"leg0": {b, a, "1000"}, "leg1": {b, string(e.venue), "1"}})
		handlerstest.MustHave(t, alice.Get("/allocations"), http.StatusOK, "Yours to receive", "Between others")
		handlerstest.MustHave(t, bob.Act(third, "allocate", "leg0"), http.StatusUnprocessableEntity, "Insufficient funds")
		if bob.Locked() != "0.0000000000" {
			t.Errorf("bob's locked coin after a refused allocate: %s", bob.Locked())
		}
		// Past the time to allocate: refused in words; the page says so.
		e.clock.Advance(90 * time.Minute)
		handlerstest.MustHave(t, bob.Act(third, "allocate", "leg0"), http.StatusUnprocessableEntity, "The time to allocate for this trade ended at 2026-11-01 15:00 UTC")
		page = bob.Get("/allocations")
		handlerstest.MustHave(t, page, http.StatusOK, `data-testid="allocation-closed"`)
		if strings.Contains(page.Body, `data-testid="allocate"`) {
			t.Error("a closed request still offers Allocate")
		}
		mustDone(t, bob.Act(third, "reject", ""), "allocations-reject")
	})
}
