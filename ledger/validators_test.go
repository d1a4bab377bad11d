package ledger_test

import (
	"context"
	"slices"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/validators"
)

// TestHostedElsewhereBuildsNothing: each validator of a network sees the
// other's parties as hosted elsewhere and its own as not, and the other
// validators' namespaces are read once when a validator is added: the
// checks every party's automation makes allocate nothing. Before, both
// built the list of the other namespaces on every call.
func TestHostedElsewhereBuildsNothing(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) { // not parallel: AllocsPerRun
			hostedElsewhere(t, ledgertest.New(t, e))
		})
	}
}

func hostedElsewhere(t *testing.T, l *ledger.Ledger) {
	ctx := context.Background()
	if got := l.Validators().OtherNamespaces(); len(got) != 0 {
		t.Errorf("other namespaces of a lone validator = %v, want none", got)
	}
	v, err := validators.Add(ctx, l, "app-provider-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	p, q := ledgertest.Party(t, l), ledgertest.Party(t, v)
	for _, c := range []struct {
		on    *ledger.Ledger
		party coin.PartyID
		want  bool
	}{{l, p, false}, {l, q, true}, {v, q, false}, {v, p, true}} {
		if got := c.on.Validators().HostedElsewhere(c.party); got != c.want {
			t.Errorf("%s: HostedElsewhere(%s) = %v, want %v", c.on.Namespace(), c.party, got, c.want)
		}
	}
	if got := l.Validators().OtherNamespaces(); !slices.Equal(got, []string{v.Namespace()}) {
		t.Errorf("other namespaces of the first = %v, want [%s]", got, v.Namespace())
	}
	if got := v.Validators().OtherNamespaces(); !slices.Equal(got, []string{l.Namespace()}) {
		t.Errorf("other namespaces of the second = %v, want [%s]", got, l.Namespace())
	}
	if n := testing.AllocsPerRun(100, func() { l.Validators().HostedElsewhere(q) }); n != 0 {
		t.Errorf("HostedElsewhere allocates %v times a call, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() { v.Validators().OtherNamespaces() }); n != 0 {
		t.Errorf("OtherNamespaces allocates %v times a call, want 0", n)
	}
}
