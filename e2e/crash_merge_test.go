package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// crashEnv gives the test the package's binary, a database of its own on
// the package's Postgres (dropped when the test ends) and a directory.
func crashEnv(t *testing.T) (bin, dbURL, dir string) {
	t.Helper()
	return walletBin, pgDB(t), t.TempDir()
}

// pgDB creates an empty database of the test's own on the package's
// Postgres cluster and drops it when the test ends.
func pgDB(t *testing.T) string {
	t.Helper()
	dbURL, drop, err := cluster.CloneDB(context.Background(), "template1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(drop)
	return dbURL
}

// kill9 ends the server with SIGKILL: no shutdown, no rollback by the
// process itself; whatever it had in flight is cut off mid-way.
func (s *crashServer) kill9(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = s.cmd.Wait()
}

// TestKillNineDuringMerge gives one party 10,000 holdings and an active
// merge delegation, lets the real server's merge automation start on them,
// kills the server with SIGKILL in the middle of the merge (twice), and
// restarts it until the merge is done. Then the party has at most
// ledger.MergeTarget holdings, its balance is the minted amount less
// exactly the fees the merges burned, the supply is conserved, no holding
// is both spent and live, and every merge transaction in the update log is
// whole: its inputs archived, its one output created, its history row
// written, and its amounts adding up.
func TestKillNineDuringMerge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bin, dbURL, dir := crashEnv(t)
	// The merge automation every second, so that it starts soon after the
	// holdings appear and again soon after each restart.
	values := "rateLimit: {burst: 0}\nautomation: {mergeInterval: 1s}\n"
	srv := startCrashServerWith(t, bin, dbURL, dir, values)

	// A user onboarded by an admin proposes a merge delegation
	// (mergeDelegationAtOnboarding is on by default); the automation
	// accepts it on its first run.
	admin := devToken(t, bin, "admin")
	c := &http.Client{Timeout: 20 * time.Second}
	code, body, err := postJSON(c, srv.url+"/v0/admin/users", admin, `{"name":"merger"}`)
	if err != nil || code != 200 {
		t.Fatalf("onboard: %d %s %v", code, body, err)
	}
	var onboarded struct {
		PartyID coin.PartyID `json:"party_id"`
	}
	if err := json.Unmarshal([]byte(body), &onboarded); err != nil {
		t.Fatal(err)
	}
	party := onboarded.PartyID

	db, err := store.Open(ctx, store.Config{URL: dbURL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	l, err := ledgertest.OpenLedger(ctx, db, ledger.Config{AdminUsers: []string{"admin"}, DevNet: true})
	if err != nil {
		t.Fatal(err)
	}
	count := func() int {
		t.Helper()
		n, err := db.NewSelect().Table("holdings").Where("owner = ?", party).Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return int(n)
	}

	// 10,000 holdings of 0.5 in one ledger transaction (recorded as
	// minted, so conservation holds from the start).
	const seeded = 10_000
	each := coin.MustParse("0.5")
	minted := coin.Zero
	mint := func() {
		t.Helper()
		as := make([]coin.Amount, seeded)
		for i := range as {
			as[i] = each
		}
		if err := ledgertest.Dev(t, l).MintBulk(ctx, party, as); err != nil {
			t.Fatal(err)
		}
		minted = minted.Add(each.MulInt(seeded))
	}
	mint()

	// waitBelow polls until the party has fewer than limit holdings but
	// more than MergeTarget: a merge is under way and not finished. A merge
	// that finished between two polls (it never has; polls are a
	// millisecond apart and a merge of 10,000 takes about a second) gets
	// fresh holdings and is caught the next time.
	waitBelow := func(limit int) int {
		t.Helper()
		for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); {
			n := count()
			switch {
			case n > ledger.MergeTarget && n < limit:
				return n
			case n <= ledger.MergeTarget:
				t.Logf("the merge finished between two polls; seeding %d holdings again", seeded)
				mint()
				limit = count()
			}
			time.Sleep(time.Millisecond)
		}
		t.Fatalf("the merge automation did not get below %d holdings (now %d)", limit, count())
		return 0
	}

	// writing is the transaction id of a server transaction that has
	// written but not committed (in a merge: holdings deleted, the merged
	// one not yet created), or 0. The test's own connections only read;
	// other tests' databases share the cluster, so only this one counts.
	writing := func() int64 {
		t.Helper()
		var xs []int64
		err := db.NewRaw(`SELECT backend_xid::text::bigint FROM pg_stat_activity
			WHERE backend_xid IS NOT NULL AND pid <> pg_backend_pid() AND datname = current_database()`).Scan(ctx, &xs)
		if err != nil {
			t.Fatal(err)
		}
		if len(xs) == 0 {
			return 0
		}
		return xs[0]
	}
	// fate is what became of transaction xid once its server died:
	// "aborted" means the kill cut it off half-way.
	fate := func(xid int64) string {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			var st string
			if err := db.NewRaw("SELECT txid_status(?)", xid).Scan(ctx, &st); err != nil {
				t.Fatal(err)
			}
			if st != "in progress" || time.Now().After(deadline) {
				return st
			}
		}
	}

	// Kills in the middle of merge runs: the first about half way through
	// the fresh holdings, the next ones in the runs that resume after each
	// restart. Each kill aims at a moment when a merge transaction has
	// written and not committed; whether it hit one (the transaction was
	// rolled back) or the transaction committed first is logged. At least
	// two kills, and more (up to six) until one cut a transaction off.
	limit := seeded / 2
	cutOff := 0
	for kill := 1; kill <= 6 && (kill <= 2 || cutOff == 0); kill++ {
		seen := waitBelow(limit)
		// Aim for a transaction in flight, for as long as the merge makes
		// less than about ten batches of progress.
		xid := writing()
		for xid == 0 && count() > max(seen-1000, ledger.MergeTarget+1) {
			xid = writing()
		}
		srv.kill9(t)
		after := count()
		what := "between two transactions"
		if xid != 0 {
			switch st := fate(xid); st {
			case "aborted":
				cutOff++
				what = fmt.Sprintf("in transaction %d, which was rolled back", xid)
			default:
				what = fmt.Sprintf("just after transaction %d (%s)", xid, st)
			}
		}
		t.Logf("kill %d: %d holdings when the merge was seen under way, %d after the kill, which landed %s", kill, seen, after, what)
		if after <= ledger.MergeTarget {
			t.Fatalf("kill %d came after the merge had finished (%d holdings): nothing was interrupted", kill, after)
		}
		limit = after
		srv = startCrashServerWith(t, bin, dbURL, dir, values)
	}
	if cutOff == 0 {
		t.Logf("no kill landed inside a writing transaction this time (each landed between two)")
	}

	// The restarted server finishes the merge by itself.
	for deadline := time.Now().Add(90 * time.Second); count() > ledger.MergeTarget; {
		if time.Now().After(deadline) {
			t.Fatalf("the merge did not finish after the restart: %d holdings", count())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Stop it so that the checks below read a ledger nobody changes.
	srv.kill9(t)

	if n := count(); n < 1 || n > ledger.MergeTarget {
		t.Errorf("party has %d holdings after the merge, want 1..%d", n, ledger.MergeTarget)
	}
	s, err := l.CheckConservation(ctx)
	if err != nil {
		t.Errorf("after the crashes: %v", err)
	}
	checkHoldingsMatchContracts(t, db)
	checkNoOrphanEvents(t, db)
	checkEveryUpdateConserves(t, db)
	merges, burned := checkMergeUpdatesWhole(t, db, party)

	// The party's coin: what was minted, less exactly the fees the merges
	// burned (holdings count at their initial amount).
	var live []store.Holding
	if err := db.NewSelect().Model(&live).Where("owner = ?", party).Scan(ctx); err != nil {
		t.Fatal(err)
	}
	bal := coin.Zero
	for _, h := range live {
		bal = bal.Add(h.Amount)
	}
	if want := minted.Sub(burned); !bal.Equal(want) {
		t.Errorf("party holds %s, want minted %s - burned by merges %s = %s", bal, minted, burned, want)
	}
	// Informational: offsets drawn by transactions that never committed,
	// the ones the kills cut off among them.
	var gaps int
	if err := db.NewRaw("SELECT COALESCE(MAX(offset_id), 0) - COUNT(*) FROM updates").Scan(ctx, &gaps); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d merge transactions; %d holdings left holding %s; supply %s; %d transactions rolled back", merges, len(live), bal, s.Live, gaps)
}

// checkHoldingsMatchContracts proves that the live holdings and the
// holding contracts agree: a locked holding has its active LockedAmulet
// contract and an unlocked one no contracts row (its row is its
// contract), no active holding contract is without its live holding, and
// no spent holding is still live.
func checkHoldingsMatchContracts(t *testing.T, db *store.DB) {
	t.Helper()
	ctx := context.Background()
	for what, q := range map[string]string{
		"locked holdings archived or without a contract": `SELECT h.contract_id FROM holdings h LEFT JOIN contracts c ON c.contract_id = h.contract_id
			WHERE h.lock_holder IS NOT NULL AND (c.contract_id IS NULL OR c.archived_offset IS NOT NULL)`,
		"unlocked holdings with a contracts row": `SELECT h.contract_id FROM holdings h JOIN contracts c ON c.contract_id = h.contract_id
			WHERE h.lock_holder IS NULL`,
		"active holding contracts without a live locked holding": `SELECT c.contract_id FROM contracts c WHERE c.template_id IN ('` +
			ledger.TemplateAmulet + `', '` + ledger.TemplateLockedAmulet + `') AND c.archived_offset IS NULL
			AND NOT EXISTS (SELECT 1 FROM holdings h WHERE h.contract_id = c.contract_id AND h.lock_holder IS NOT NULL)`,
		"spent holdings still live": `SELECT s.contract_id FROM spent_holdings s JOIN holdings h ON h.contract_id = s.contract_id`,
	} {
		var bad []string
		if err := db.NewRaw(q).Scan(ctx, &bad); err != nil {
			t.Fatal(err)
		}
		if len(bad) > 0 {
			t.Errorf("%d %s, e.g. %s", len(bad), what, bad[0])
		}
	}
}

// checkNoOrphanEvents proves that every created and archived event and
// every history row belongs to a committed update.
func checkNoOrphanEvents(t *testing.T, db *store.DB) {
	t.Helper()
	ctx := context.Background()
	for what, q := range map[string]string{
		"created events":          `SELECT COUNT(*) FROM contracts c WHERE NOT EXISTS (SELECT 1 FROM updates u WHERE u.offset_id = c.created_offset)`,
		"archived events":         `SELECT COUNT(*) FROM contracts c WHERE c.archived_offset IS NOT NULL AND NOT EXISTS (SELECT 1 FROM updates u WHERE u.offset_id = c.archived_offset)`,
		"live holdings":           `SELECT COUNT(*) FROM holdings h WHERE NOT EXISTS (SELECT 1 FROM updates u WHERE u.offset_id = h.created_offset)`,
		"spent holdings' creates": `SELECT COUNT(*) FROM spent_holdings s WHERE NOT EXISTS (SELECT 1 FROM updates u WHERE u.offset_id = s.created_offset)`,
		"spent holdings' spends":  `SELECT COUNT(*) FROM spent_holdings s WHERE NOT EXISTS (SELECT 1 FROM updates u WHERE u.offset_id = s.spent_offset)`,
		"history rows":            `SELECT COUNT(*) FROM history h WHERE NOT EXISTS (SELECT 1 FROM updates u WHERE u.offset_id = h.offset_id)`,
	} {
		var n int
		if err := db.NewRaw(q).Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%d %s without their update", n, what)
		}
	}
}

// holdingEvent is one holding's life in the update log: created at an
// offset, archived (spent, expired, unlocked) at another unless live.
type holdingEvent struct {
	id       coin.ContractID
	owner    coin.PartyID
	initial  coin.Amount
	created  int64
	archived *int64
}

// holdingEvents reads every holding the log knows: locked ones (and
// unlocked ones archived before migration 0018) from their contracts, live
// unlocked ones from holdings, spent ones from spent_holdings.
func holdingEvents(t *testing.T, db *store.DB) []holdingEvent {
	t.Helper()
	ctx := context.Background()
	var cs []store.Contract
	err := db.NewSelect().Model(&cs).Where("template_id IN (?)", bun.List([]string{ledger.TemplateAmulet, ledger.TemplateLockedAmulet})).Scan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []holdingEvent
	for _, c := range cs {
		var p struct {
			Owner  coin.PartyID `json:"owner"`
			Amount struct {
				InitialAmount *coin.Amount `json:"initialAmount"`
			} `json:"amount"`
			Amulet struct {
				Owner  coin.PartyID `json:"owner"`
				Amount struct {
					InitialAmount *coin.Amount `json:"initialAmount"`
				} `json:"amount"`
			} `json:"amulet"`
		}
		if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
			t.Fatalf("holding %s: %v", c.ContractID, err)
		}
		owner, a := p.Owner, p.Amount.InitialAmount
		if c.TemplateID == ledger.TemplateLockedAmulet {
			owner, a = p.Amulet.Owner, p.Amulet.Amount.InitialAmount
		}
		if a == nil {
			t.Fatalf("holding %s has no initial amount: %s", c.ContractID, c.Payload)
		}
		out = append(out, holdingEvent{id: c.ContractID, owner: owner, initial: *a, created: c.CreatedOffset, archived: c.ArchivedOffset})
	}
	var live []store.Holding
	if err := db.NewSelect().Model(&live).Where("lock_holder IS NULL").Scan(ctx); err != nil {
		t.Fatal(err)
	}
	for _, h := range live {
		out = append(out, holdingEvent{id: h.ContractID, owner: h.Owner, initial: h.Amount, created: h.CreatedOffset})
	}
	var spent []store.SpentHolding
	if err := db.NewSelect().Model(&spent).Scan(ctx); err != nil {
		t.Fatal(err)
	}
	for _, s := range spent {
		out = append(out, holdingEvent{id: s.ContractID, owner: s.Owner, initial: s.Amount, created: s.CreatedOffset, archived: &s.SpentOffset})
	}
	return out
}

// checkEveryUpdateConserves proves each transaction of the update log
// whole on its own: the holdings it created less the holdings it archived
// (at their initial amounts) are exactly what it minted less what it
// burned. A transaction with a missing event would not add up.
func checkEveryUpdateConserves(t *testing.T, db *store.DB) {
	t.Helper()
	ctx := context.Background()
	var us []store.Update
	if err := db.NewSelect().Model(&us).Scan(ctx); err != nil {
		t.Fatal(err)
	}
	delta := make(map[int64]coin.Amount, len(us))
	for _, h := range holdingEvents(t, db) {
		delta[h.created] = delta[h.created].Add(h.initial)
		if h.archived != nil {
			delta[*h.archived] = delta[*h.archived].Sub(h.initial)
		}
	}
	for _, u := range us {
		if want := u.Minted.Sub(u.Burned); !delta[u.OffsetID].Equal(want) {
			t.Errorf("update %d (%s): holdings changed by %s, want minted %s - burned %s", u.OffsetID, u.Kind, delta[u.OffsetID], u.Minted, u.Burned)
		}
	}
}

// checkMergeUpdatesWhole checks every merge transaction in the update log:
// at least two of the party's holdings archived, exactly one new holding of
// the party created, one history row saying how many it merged, nothing
// minted, and inputs = output + burned. It returns how many merges there
// were and what they burned in all.
func checkMergeUpdatesWhole(t *testing.T, db *store.DB, party coin.PartyID) (int, coin.Amount) {
	t.Helper()
	ctx := context.Background()
	var us []store.Update
	if err := db.NewSelect().Model(&us).Where("kind = ?", "merge-holdings").Order("offset_id").Scan(ctx); err != nil {
		t.Fatal(err)
	}
	if len(us) == 0 {
		t.Fatal("no merge transaction in the update log")
	}
	offs := make([]int64, len(us))
	for i, u := range us {
		offs[i] = u.OffsetID
	}
	var hs []store.HistoryEntry
	if err := db.NewSelect().Model(&hs).Where("offset_id IN (?)", bun.List(offs)).Where("party = ?", party).Scan(ctx); err != nil {
		t.Fatal(err)
	}
	type event struct {
		in, out       coin.Amount
		inputs, made  int
		history       []store.HistoryEntry
		foreignOwners int
		ours          int // events of party's holdings
	}
	ev := make(map[int64]*event, len(us))
	for _, u := range us {
		ev[u.OffsetID] = &event{in: coin.Zero, out: coin.Zero}
	}
	for _, h := range holdingEvents(t, db) {
		if e, ok := ev[h.created]; ok {
			e.made++
			e.out = e.out.Add(h.initial)
			if h.owner != party {
				e.foreignOwners++
			} else {
				e.ours++
			}
		}
		if h.archived != nil {
			if e, ok := ev[*h.archived]; ok {
				e.inputs++
				e.in = e.in.Add(h.initial)
				if h.owner != party {
					e.foreignOwners++
				} else {
					e.ours++
				}
			}
		}
	}
	// The automation merges every wallet the validator runs, the
	// operator's too: only the merges that touch party are this test's.
	us = slices.DeleteFunc(us, func(u store.Update) bool { return ev[u.OffsetID].ours == 0 })
	if len(us) == 0 {
		t.Fatal("no merge transaction of the party in the update log")
	}
	for _, h := range hs {
		ev[h.OffsetID].history = append(ev[h.OffsetID].history, h)
	}
	burned := coin.Zero
	for _, u := range us {
		e := ev[u.OffsetID]
		burned = burned.Add(u.Burned)
		var problems []string
		if e.inputs < 2 {
			problems = append(problems, fmt.Sprintf("%d inputs archived", e.inputs))
		}
		if e.made != 1 {
			problems = append(problems, fmt.Sprintf("%d holdings created", e.made))
		}
		if e.foreignOwners != 0 {
			problems = append(problems, fmt.Sprintf("%d holdings of other parties", e.foreignOwners))
		}
		if !u.Minted.IsZero() {
			problems = append(problems, "minted "+u.Minted.String())
		}
		if !e.in.Equal(e.out.Add(u.Burned)) {
			problems = append(problems, fmt.Sprintf("inputs %s != output %s + burned %s", e.in, e.out, u.Burned))
		}
		want := fmt.Sprintf("merged %d holdings", e.inputs)
		if len(e.history) != 1 || e.history[0].Subtype != ledger.MergeHistorySubtype || e.history[0].Description != want {
			problems = append(problems, fmt.Sprintf("history %+v, want one %s row %q", e.history, ledger.MergeHistorySubtype, want))
		}
		if len(problems) > 0 {
			t.Errorf("merge transaction at offset %d is not whole: %v", u.OffsetID, problems)
		}
	}
	return len(us), burned
}
