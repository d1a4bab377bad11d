package handlers_test

// The contract test of the name service's validator API
// (ans-external.yaml): every operation through the full router on both
// engines, each exchange validated against the spec.

import (
	"context"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// ansOperations are the operations of ans-external.yaml this test covers.
var ansOperations = []string{
	"ans-external.yaml#listAnsEntries",
}

func TestContractAns(t *testing.T) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			t.Parallel()
			e := newContractEnv(t, engine)
			runAnsContract(t, e)
			e.checkOperations(t, ansOperations, nil)
		})
	}
}

func runAnsContract(t *testing.T, e *contractEnv) {
	ctx := context.Background()
	if _, err := e.l.Onboard(ctx, "alice", ""); err != nil {
		t.Fatal(err)
	}
	if r := e.prefixed("alice", "GET", "/v0/entry/all", nil, 200); strings.TrimSpace(string(r.Body)) != `{"entries":[]}` {
		t.Errorf("alice's entries = %s", r.Body)
	}
	e.expect("stranger", "GET", "/v0/entry/all", nil, 404)
}
