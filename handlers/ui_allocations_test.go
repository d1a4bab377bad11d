package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/pending"
)

// tradeEnv is a UI env whose ledger runs on a settable clock, with a venue.
type tradeEnv struct {
	*uiEnv
	clock *ledgertest.Clock
	venue coin.PartyID
}

func forTradeEngine(t *testing.T, fn func(t *testing.T, e *tradeEnv)) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			clock := ledgertest.NewClock()
			l := ledgertest.New(t, engine, ledgertest.Options{Clock: clock})
			e := &tradeEnv{uiEnv: newUIEnvOn(t, l, nil, func(*handlers.Config) {}), clock: clock}
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
	tl := map[string]ledger.TransferLeg{}
	var traders []coin.PartyID
	for id, l := range legs {
		tl[id] = ledger.TransferLeg{Sender: coin.PartyID(l[0]), Receiver: coin.PartyID(l[1]), Amount: coin.MustParse(l[2]),
			InstrumentID: ledger.InstrumentRef{Admin: e.l.DSO(), ID: ledger.InstrumentID}}
		traders = append(traders, coin.PartyID(l[0]), coin.PartyID(l[1]))
	}
	p, err := e.w.Allocations.ProposeTrade(ctx, traders, ledger.OTCTradeProposal{Venue: e.venue, TransferLegs: tl, Approvers: traders}, "")
	if err != nil {
		t.Fatal(err)
	}
	now := e.clock.Now()
	tr, err := e.w.Allocations.InitiateTradeSettlement(ctx, []coin.PartyID{e.venue}, p.Created, ledger.FormatTime(now.Add(time.Hour)), ledger.FormatTime(now.Add(2*time.Hour)), "")
	if err != nil {
		t.Fatal(err)
	}
	return tr.Created
}

// act posts an Allocations page button without JavaScript.
func (w *wallet) act(cid coin.ContractID, action, leg string) resp {
	w.t.Helper()
	return w.post("/allocations/"+string(cid)+"/"+action, url.Values{"csrf_token": {w.csrf}, "leg": {leg}})
}

// actHX is act with htmx.
func (w *wallet) actHX(cid coin.ContractID, action, leg string) resp {
	w.t.Helper()
	return w.do(http.MethodPost, "/allocations/"+string(cid)+"/"+action, url.Values{"csrf_token": {w.csrf}, "leg": {leg}},
		map[string]string{"HX-Request": "true"})
}

func mustDone(t *testing.T, r resp, code string) {
	t.Helper()
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/allocations?done="+code {
		t.Fatalf("status %d location %q, want 303 to /allocations?done=%s: %.500s", r.status, r.header.Get("Location"), code, r.body)
	}
}

func (w *wallet) locked() string {
	w.t.Helper()
	b, err := w.env.l.Balance(context.Background(), w.party)
	if err != nil {
		w.t.Fatal(err)
	}
	return b.EffectiveLocked.String()
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
		alice := e.wallet(t, "alice", "100") // 20000 CC
		bob := e.wallet(t, "bob", "1")       // 200 CC
		a, b := string(alice.party), string(bob.party)
		mark, err := pending.New(e.l).Mark(ctx, alice.party)
		if err != nil {
			t.Fatal(err)
		}
		mustHave(t, alice.get("/allocations"), http.StatusOK, `aria-current="page" data-testid="nav-allocations"`,
			`data-testid="allocation-requests-empty"`, `data-testid="allocations-empty"`, `hx-get="/allocations/live"`, `data-events="/events"`)

		trade := e.trade(t, map[string][3]string{"leg0": {a, b, "30"}, "leg1": {b, a, "12.5"}})
		if m, err := pending.New(e.l).Mark(ctx, alice.party); err != nil || m == mark {
			t.Errorf("pending mark %q -> %q (%v): a new trade must wake live updates", mark, m, err)
		}
		page := alice.get("/allocations")
		mustHave(t, page, http.StatusOK, `data-testid="allocation-request" data-cid="`+string(trade)+`"`, `title="`+string(e.venue)+`"`,
			`data-leg="leg0"`, `data-leg="leg1"`, `action="/allocations/`+string(trade)+`/allocate"`, `name="leg" value="leg0"`,
			`action="/allocations/`+string(trade)+`/reject"`, `data-testid="allocate-before">2026-11-01 13:00:00 UTC<`,
			`data-testid="settle-before">2026-11-01 14:00:00 UTC<`, `title="30.0000000000 CC"`, `name="csrf_token" value="`+alice.csrf+`"`)
		if strings.Count(page.body, `data-testid="allocate"`) != 1 || strings.Contains(page.body, `value="leg1"`) {
			t.Errorf("alice may allocate only her leg: %.3000s", page.body)
		}
		mustHave(t, alice.get("/"), http.StatusOK, `data-kind="allocations" data-cid="`+string(trade)+`"`, `href="/allocations"`,
			`data-testid="incoming-amount" title="30.0000000000 CC"`, `data-testid="incoming-receive" title="12.5000000000 CC"`)
		if got := alice.incoming(); len(got["allocations"]) != 1 {
			t.Errorf("alice's cards = %v, want the trade", got)
		}

		// Someone else's leg, and an unknown action: refused, nothing changed.
		mustHave(t, alice.act(trade, "allocate", "leg1"), http.StatusUnprocessableEntity, "<html", `data-testid="allocations-error"`, "has no leg &#34;leg1&#34; that you send")
		mustHave(t, alice.act(trade, "allocate", strings.Repeat("x", 5000)), http.StatusUnprocessableEntity, "Must be at most")
		mustHave(t, alice.act(trade, "allocate", "leg\xff"), http.StatusUnprocessableEntity, "valid UTF-8")
		mustHave(t, alice.act(trade, "settle", ""), http.StatusNotFound)
		mustHave(t, alice.act("nonsense", "allocate", "leg0"), http.StatusUnprocessableEntity, "no such allocation or request")

		// Alice allocates without JavaScript: her coin is locked.
		mustDone(t, alice.act(trade, "allocate", "leg0"), "allocations-allocate")
		if alice.balance() != "19970.0000000000" || alice.locked() != "30.0000000000" {
			t.Errorf("alice after allocating: %s available, %s locked", alice.balance(), alice.locked())
		}
		page = alice.get("/allocations?done=allocations-allocate")
		mustHave(t, page, http.StatusOK, `data-testid="flash"`, "Allocated: your coin is locked", `data-testid="leg-allocated"`,
			`data-testid="allocations-row"`, `action="/allocations/`, `/withdraw"`)
		if strings.Contains(page.body, `data-testid="allocate"`) {
			t.Error("the allocated leg still offers Allocate")
		}
		if got := alice.incoming(); len(got["allocations"]) != 0 {
			t.Errorf("alice's cards after allocating = %v", got)
		}
		// Again (a double click, or a stale page): refused in words.
		r := alice.actHX(trade, "allocate", "leg0")
		mustHave(t, r, http.StatusUnprocessableEntity, `id="allocations-list"`, "You already allocated this leg")
		if strings.Contains(r.body, "<html") {
			t.Error("an htmx answer is a whole page")
		}
		if alice.locked() != "30.0000000000" {
			t.Errorf("alice's locked coin after the second allocate = %s", alice.locked())
		}

		// Bob allocates with htmx: the lists come back saying so.
		r = bob.actHX(trade, "allocate", "leg1")
		mustHave(t, r, http.StatusOK, `id="allocations-list"`, "Allocated: your coin", `data-testid="leg-allocated"`)
		if r.header.Get("HX-Trigger") != "wallet-changed" {
			t.Errorf("HX-Trigger = %q", r.header.Get("HX-Trigger"))
		}

		// The venue settles both legs in one update.
		ids := map[string]coin.ContractID{}
		for _, w := range []*wallet{alice, bob} {
			as, err := e.w.Allocations.PendingAllocations(ctx, w.party)
			if err != nil || len(as) != 1 {
				t.Fatalf("%s's pending allocations: %v %v", w.party, as, err)
			}
			ids[as[0].Spec.TransferLegID] = as[0].Contract.ContractID
		}
		if _, err := e.w.Allocations.SettleTrade(ctx, []coin.PartyID{e.venue}, trade, ids, ""); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			w              *wallet
			balance, other string
		}{{alice, "19982.5000000000", b}, {bob, "217.5000000000", a}} {
			if c.w.balance() != c.balance || c.w.locked() != "0.0000000000" {
				t.Errorf("%s after settlement: %s available, %s locked; want %s", c.w.party, c.w.balance(), c.w.locked(), c.balance)
			}
			page := c.w.get("/allocations/live")
			mustHave(t, page, http.StatusOK, `data-testid="allocation-requests-empty"`, `data-testid="allocations-empty"`, `data-testid="allocations-finished"`)
			rows := allocRowRe.FindAllStringSubmatch(page.body, -1)
			// Its own leg executed, and the counterparty's it received.
			if len(rows) != 2 || rows[0][3] != "executed" || rows[1][3] != "executed" {
				t.Errorf("%s's finished allocations: %v", c.w.party, rows)
			}
		}

		// A pending allocation withdrawn: the coin comes back, once.
		second := e.trade(t, map[string][3]string{"leg0": {a, b, "5"}})
		mustDone(t, alice.act(second, "allocate", "leg0"), "allocations-allocate")
		pending, err := e.w.Allocations.PendingAllocations(ctx, alice.party)
		if err != nil || len(pending) != 1 {
			t.Fatalf("pending: %v %v", pending, err)
		}
		alloc := pending[0].Contract.ContractID
		mustHave(t, bob.act(alloc, "withdraw", ""), http.StatusUnprocessableEntity, "not one you send")
		mustDone(t, alice.act(alloc, "withdraw", ""), "allocations-withdraw")
		if alice.balance() != "19982.5000000000" || alice.locked() != "0.0000000000" {
			t.Errorf("alice after withdrawing: %s available, %s locked", alice.balance(), alice.locked())
		}
		mustHave(t, alice.act(alloc, "withdraw", ""), http.StatusUnprocessableEntity, "no longer pending")
		mustHave(t, alice.get("/allocations"), http.StatusOK, `data-cid="`+string(alloc)+`" data-state="withdrawn"`)

		// Rejected: a receiver may not, a sender may; the trade is off.
		mustHave(t, bob.act(second, "reject", ""), http.StatusUnprocessableEntity, "not yours to reject")
		mustDone(t, alice.act(second, "reject", ""), "allocations-reject")
		mustHave(t, alice.get("/allocations?done=allocations-reject"), http.StatusOK, "Allocation request rejected", `data-testid="allocation-requests-empty"`)
		mustHave(t, bob.act(second, "allocate", "leg0"), http.StatusUnprocessableEntity, "no longer open")

		// Left past its settlement deadline, an allocation says its coin
		// comes back, and the expiry automation returns it.
		fourth := e.trade(t, map[string][3]string{"leg0": {a, b, "2"}})
		mustDone(t, alice.act(fourth, "allocate", "leg0"), "allocations-allocate")
		e.clock.Advance(2 * time.Hour)
		mustHave(t, alice.get("/allocations"), http.StatusOK, `data-testid="allocation-overdue"`, `data-testid="allocation-closed"`)
		if n, err := e.w.Allocations.ExpireAllocations(ctx); err != nil || n != 1 {
			t.Fatalf("expired %d, %v", n, err)
		}
		page = alice.get("/allocations")
		mustHave(t, page, http.StatusOK, `data-testid="allocations-empty"`, `data-state="expired"`)
		if alice.balance() != "19982.5000000000" || alice.locked() != "0.0000000000" {
			t.Errorf("alice after expiry: %s available, %s locked", alice.balance(), alice.locked())
		}
		mustDone(t, alice.act(fourth, "reject", ""), "allocations-reject")

		// More than bob has: refused, nothing locked.
		third := e.trade(t, map[string][3]string{"leg0": {b, a, "1000"}, "leg1": {b, string(e.venue), "1"}})
		mustHave(t, alice.get("/allocations"), http.StatusOK, "Yours to receive", "Between others")
		mustHave(t, bob.act(third, "allocate", "leg0"), http.StatusUnprocessableEntity, "Insufficient funds")
		if bob.locked() != "0.0000000000" {
			t.Errorf("bob's locked coin after a refused allocate: %s", bob.locked())
		}
		// Past the time to allocate: refused in words; the page says so.
		e.clock.Advance(90 * time.Minute)
		mustHave(t, bob.act(third, "allocate", "leg0"), http.StatusUnprocessableEntity, "The time to allocate for this trade ended at 2026-11-01 15:00 UTC")
		page = bob.get("/allocations")
		mustHave(t, page, http.StatusOK, `data-testid="allocation-closed"`)
		if strings.Contains(page.body, `data-testid="allocate"`) {
			t.Error("a closed request still offers Allocate")
		}
		mustDone(t, bob.act(third, "reject", ""), "allocations-reject")
	})
}
