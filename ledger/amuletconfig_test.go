package ledger_test

import (
	"context"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/google/go-cmp/cmp"
)

// TestRulesSurviveReopen: the rules contract shows the rules in Splice's
// shape, so the ledger keeps its own copy; a reopened ledger (a replica,
// a restart) has exactly the rules it was bootstrapped with, knobs Splice
// has no field for included, and so does a ledger bootstrapped before
// that copy existed, from the rules contract.
func TestRulesSurviveReopen(t *testing.T) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			rules := ledger.DefaultRules()
			rules.MinTopupAmountBytes = 300_000
			rules.TrafficBaseBytes = 1_234
			rules.TrafficPerInputBytes = 77
			rules.HoldingFeeUSD = coin.MustParse("0.0000000001")
			rules.BaseRateBurstWindow = 7 * time.Minute
			url := ledgertest.DBURL(t, engine)
			first := ledgertest.Open(t, url, ledgertest.Options{Rules: &rules})
			if diff := cmp.Diff(rules, first.Rules()); diff != "" {
				t.Fatalf("bootstrapped rules (-want +got):\n%s", diff)
			}
			// Another process opens it with no rules configured.
			if diff := cmp.Diff(rules, ledgertest.Open(t, url, ledgertest.Options{}).Rules()); diff != "" {
				t.Errorf("reopened rules (-want +got):\n%s", diff)
			}
			if err := first.StoreRulesAsBefore(context.Background()); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(rules, ledgertest.Open(t, url, ledgertest.Options{}).Rules()); diff != "" {
				t.Errorf("rules of a ledger from before (-want +got):\n%s", diff)
			}
		})
	}
}
