package names_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/names"
	"github.com/ccwallet/ccwallet/ledger/subscriptions"
)

// TestAnsNameRules checks the real name format: the suffix, the label's
// characters and its length (60 in all), and the URL and description
// bounds.
func TestAnsNameRules(t *testing.T) {
	c := ledger.DefaultAnsConfig()
	long := strings.Repeat("a", names.MaxNameLen-len(names.Suffix(c)))
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"alice.unverified.cns", true},
		{"a-b_c9.unverified.cns", true},
		{long + ".unverified.cns", true},
		{long + "a.unverified.cns", false},
		{".unverified.cns", false},
		{"Alice.unverified.cns", false},
		{"al.ice.unverified.cns", false},
		{"alice.cns", false},
		{"alice.unverified.ans", false},
		{"alice", false},
		{"", false},
	} {
		if err := names.CheckName(c, tc.name); (err == nil) != tc.ok {
			t.Errorf("CheckName(%q) = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

// ansRef stands for a subscription request until the request makes one.
func ansRef() coin.ContractID { return coin.NewContractID() }

// TestAnsEntryLifecycle runs a name through its life on both engines:
// requested (no entry yet), paid (the entry, expiring after the entry
// lifetime, found by name, by party, in the list and resolved), renewed
// (one lifetime later, a new contract), expired (no longer found, and
// free for another user), and ended with its subscription.
func TestAnsEntryLifecycle(t *testing.T) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		alice, bob := ledgertest.Party(t, l), ledgertest.Party(t, l)
		name := "alice.unverified.cns"
		ref := ansRef()
		if _, err := set(l).Names.RequestAnsContext(ctx, names.AnsRequest{User: alice, Name: name, URL: "https://alice.example", Description: "Alice"}, ref); err != nil {
			t.Fatal(err)
		}
		if _, err := set(l).Names.AnsEntryByName(ctx, name); !errors.Is(err, fault.ErrNotFound) {
			t.Fatalf("before payment: %v, want not found", err)
		}
		if err := set(l).Names.RunAnsHook(ctx, names.AnsInitialPaid, ref); err != nil {
			t.Fatal(err)
		}
		lifetime := l.AnsConfig().EntryLifetime
		e, err := set(l).Names.AnsEntryByName(ctx, name)
		if err != nil || e.User != alice || e.URL != "https://alice.example" || !e.ExpiresAt.Equal(clock.Now().Add(lifetime)) {
			t.Fatalf("entry = %+v, %v", e, err)
		}
		if p, err := set(l).Names.AnsEntryByParty(ctx, alice); err != nil || p.ContractID != e.ContractID {
			t.Errorf("by party = %+v, %v", p, err)
		}
		if got, err := set(l).Names.ResolveParty(ctx, "receiver", name); err != nil || got != alice {
			t.Errorf("resolve = %s, %v", got, err)
		}
		if names, err := set(l).Names.NamesOf(ctx, []coin.PartyID{alice, bob, l.DSO()}); err != nil || names[alice] != name || names[bob] != "" || names[l.DSO()] != "dso.cns" {
			t.Errorf("names = %v, %v", names, err)
		}
		if es, err := set(l).Names.AnsEntries(ctx, "ali", 10); err != nil || len(es) != 1 {
			t.Errorf("list ali = %v, %v", es, err)
		}
		if es, err := set(l).Names.AnsEntries(ctx, "al_", 10); err != nil || len(es) != 0 {
			t.Errorf("list al_ = %v, %v; '_' must match itself only", es, err)
		}
		// Taken: another request for it is refused, and so is its payment.
		if _, err := set(l).Names.RequestAnsContext(ctx, names.AnsRequest{User: bob, Name: name}, ansRef()); !fault.IsValidation(err) {
			t.Errorf("request of a taken name: %v", err)
		}
		if err := set(l).Names.RunAnsHook(ctx, names.AnsRenewalPaid, ref); err != nil {
			t.Fatal(err)
		}
		r, err := set(l).Names.AnsEntryByName(ctx, name)
		if err != nil || r.ContractID == e.ContractID || !r.ExpiresAt.Equal(e.ExpiresAt.Add(lifetime)) {
			t.Fatalf("renewed = %+v, %v", r, err)
		}
		clock.Advance(2*lifetime + time.Second)
		if _, err := set(l).Names.AnsEntryByName(ctx, name); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("after expiry: %v, want not found", err)
		}
		if _, err := set(l).Names.ResolveParty(ctx, "receiver", name); err == nil || !strings.Contains(err.Error(), "no party has the name "+name) {
			t.Errorf("resolve after expiry: %v", err)
		}
		if n, err := set(l).Names.ExpireAnsEntries(ctx); err != nil || n != 1 {
			t.Errorf("expired %d, %v; want 1", n, err)
		}
		if err := set(l).Names.RunAnsHook(ctx, names.AnsRenewalPaid, ref); !errors.Is(err, subscriptions.ErrSubscriptionRefused) {
			t.Errorf("renewal after expiry: %v", err)
		}
		// The name is free: bob takes it.
		bobRef := ansRef()
		if _, err := set(l).Names.RequestAnsContext(ctx, names.AnsRequest{User: bob, Name: name}, bobRef); err != nil {
			t.Fatal(err)
		}
		if err := set(l).Names.RunAnsHook(ctx, names.AnsInitialPaid, bobRef); err != nil {
			t.Fatal(err)
		}
		if got, err := set(l).Names.ResolveParty(ctx, "receiver", name); err != nil || got != bob {
			t.Errorf("resolve = %s, %v; want bob", got, err)
		}
		if err := set(l).Names.RunAnsHook(ctx, names.AnsExpired, ref); err != nil {
			t.Fatal(err)
		}
		if ns, err := set(l).Names.AnsNamesOf(ctx, alice); err != nil || len(ns) != 0 {
			t.Errorf("alice's names after her subscription ended = %v, %v", ns, err)
		}
		ledgertest.Conserved(t, l)
	})
}

// TestAnsInitialPaymentOfTakenName: two users request one name; the first
// payment collected wins and the second is refused, changing nothing.
func TestAnsInitialPaymentOfTakenName(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		alice, bob := ledgertest.Party(t, l), ledgertest.Party(t, l)
		name := "shared.unverified.cns"
		ra, rb := ansRef(), ansRef()
		for _, r := range []struct {
			p   coin.PartyID
			ref coin.ContractID
		}{{alice, ra}, {bob, rb}} {
			if _, err := set(l).Names.RequestAnsContext(ctx, names.AnsRequest{User: r.p, Name: name}, r.ref); err != nil {
				t.Fatal(err)
			}
		}
		if err := set(l).Names.RunAnsHook(ctx, names.AnsInitialPaid, ra); err != nil {
			t.Fatal(err)
		}
		if err := set(l).Names.RunAnsHook(ctx, names.AnsInitialPaid, rb); !errors.Is(err, names.ErrAnsNameTaken) {
			t.Fatalf("second payment: %v, want taken", err)
		}
		if e, err := set(l).Names.AnsEntryByName(ctx, name); err != nil || e.User != alice {
			t.Errorf("entry = %+v, %v", e, err)
		}
		if e, err := set(l).Names.AnsEntryByParty(ctx, bob); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("bob's entry = %+v, %v; want none", e, err)
		}
		ledgertest.Conserved(t, l)
	})
}

// TestAnsRequestBounds: a bad name, URL or description is refused with
// its field named, and the AnsRules contract carries the real defaults.
func TestAnsRequestBounds(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		alice := ledgertest.Party(t, l)
		for _, r := range []names.AnsRequest{
			{User: alice, Name: "alice"},
			{User: alice, Name: "alice.unverified.cns", URL: "ftp://x"},
			{User: alice, Name: "alice.unverified.cns", URL: "https://" + strings.Repeat("x", 250)},
			{User: alice, Name: "alice.unverified.cns", Description: strings.Repeat("d", 141)},
		} {
			if _, err := set(l).Names.RequestAnsContext(ctx, r, ansRef()); !fault.IsValidation(err) {
				t.Errorf("request %+v: %v, want a validation error", r, err)
			}
		}
		rules, err := set(l).Names.AnsRules(ctx)
		if err != nil || !strings.Contains(string(rules.Payload), `"entryFee":"1.0000000000"`) || !strings.Contains(string(rules.Payload), `"entryLifetime":{"microseconds":"7776000000000"}`) {
			t.Errorf("AnsRules = %s, %v", rules.Payload, err)
		}
	})
}

// TestAnsBySubscription runs the real flow on both engines: the request
// makes a subscription request to the DSO for 1 USD every 90 days; the
// user accepts it, the DSO's collection creates the entry; the wallet's
// automation pays the renewal inside the 30-day window and the
// collection renews the entry; a second user's payment for the taken
// name is refused and returned whole; when the owner can no longer pay,
// the subscription expires and the name is free.
func TestAnsBySubscription(t *testing.T) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		alice, bob := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, alice, "600")
		ledgertest.Mint(t, l, bob, "300")
		name := "alice.unverified.cns"
		dsoBefore := ledgertest.Balances(t, l, l.DSO())
		res, err := set(l).Names.RequestAnsEntry(ctx, names.AnsRequest{User: alice, Name: name, URL: "https://alice.example"})
		if err != nil {
			t.Fatal(err)
		}
		req, err := set(l).Subscriptions.SubscriptionRequest(ctx, alice, res.SubscriptionRequestCID)
		if err != nil {
			t.Fatal(err)
		}
		if d := req.Data; d.Receiver != l.DSO() || d.Provider != l.DSO() || d.Description != `ANS entry: "alice.unverified.cns"` {
			t.Errorf("subscription data = %+v", d)
		}
		bobRes, err := set(l).Names.RequestAnsEntry(ctx, names.AnsRequest{User: bob, Name: name})
		if err != nil {
			t.Fatal(err)
		}
		if ns, err := set(l).Names.AnsNamesOf(ctx, alice); err != nil || len(ns) != 1 || ns[0].Collecting || ns[0].EntryCID != "" {
			t.Errorf("alice's request before she accepts = %+v, %v", ns, err)
		}
		for _, a := range []struct {
			p   coin.PartyID
			req coin.ContractID
		}{{alice, res.SubscriptionRequestCID}, {bob, bobRes.SubscriptionRequestCID}} {
			if _, err := set(l).Subscriptions.AcceptSubscriptionRequest(ctx, a.p, a.req); err != nil {
				t.Fatal(err)
			}
		}
		if ns, err := set(l).Names.AnsNamesOf(ctx, alice); err != nil || len(ns) != 1 || !ns[0].Collecting {
			t.Errorf("alice's request once paid = %+v, %v", ns, err)
		}
		if _, err := set(l).Subscriptions.CollectSubscriptions(ctx); err != nil {
			t.Fatal(err)
		}
		e, err := set(l).Names.AnsEntryByName(ctx, name)
		if err != nil || e.User != alice {
			t.Fatalf("entry = %+v, %v; want alice's", e, err)
		}
		// The DSO burns the fee: its balance does not grow.
		if got := ledgertest.Balances(t, l, l.DSO()); got[0] != dsoBefore[0] {
			t.Errorf("the DSO after the collection: %v, want %v", got, dsoBefore)
		}
		// bob's refused request will never be paid: his page drops it.
		if ns, err := set(l).Names.AnsNamesOf(ctx, bob); err != nil || len(ns) != 0 {
			t.Errorf("bob's names after the refusal = %+v, %v", ns, err)
		}
		if got := ledgertest.Balances(t, l, bob); got[0] != "unlocked=300.0000000000 locked=0.0000000000" {
			t.Errorf("bob after his refused payment: %v", got)
		}
		lifetime := l.AnsConfig().EntryLifetime
		clock.Advance(lifetime - l.AnsConfig().RenewalDuration + time.Hour)
		if rep, err := set(l).Subscriptions.PaySubscriptions(ctx); err != nil || rep.Paid != 1 {
			t.Fatalf("renewal payment = %+v, %v", rep, err)
		}
		if _, err := set(l).Subscriptions.CollectSubscriptions(ctx); err != nil {
			t.Fatal(err)
		}
		r, err := set(l).Names.AnsEntryByName(ctx, name)
		if err != nil || !r.ExpiresAt.Equal(e.ExpiresAt.Add(lifetime)) {
			t.Fatalf("renewed = %+v, %v", r, err)
		}
		// Alice spent her coin: the next payment fails and the
		// subscription expires with the entry.
		ledgertest.Conserved(t, l)
		b, err := l.Balance(ctx, alice)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Transfer(ctx, ledger.TransferRequest{Sender: alice, Receiver: bob, Amount: b.EffectiveUnlocked.Sub(coin.MustParse("1"))}); err != nil {
			t.Fatal(err)
		}
		clock.Advance(lifetime + l.AnsConfig().RenewalDuration)
		if rep, err := set(l).Subscriptions.PaySubscriptions(ctx); err != nil || rep.Expired != 1 {
			t.Fatalf("after the missed payment: %+v, %v", rep, err)
		}
		if _, err := set(l).Subscriptions.PaySubscriptions(ctx); err != nil {
			t.Fatal(err)
		}
		if ns, err := set(l).Names.AnsNamesOf(ctx, alice); err != nil || len(ns) != 0 {
			t.Errorf("alice's names after the missed payment = %+v, %v", ns, err)
		}
		if _, err := set(l).Names.RequestAnsEntry(ctx, names.AnsRequest{User: bob, Name: name}); err != nil {
			t.Errorf("the name is free again: %v", err)
		}
		ledgertest.Conserved(t, l)
	})
}
