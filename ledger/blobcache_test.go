package ledger_test

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/store"
)

// TestKeptBlobs: the blobs the ledger keeps (ledger/blobcache) are the ones it
// would make: the same blob again for the same contract, a new one when
// the contract moves to another synchronizer; and a blob it verified once
// does not make a changed one pass.
func TestKeptBlobs(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		cs, err := store.ContractsByIDs(ctx, l.DB(), []coin.ContractID{l.RulesContractID()})
		if err != nil {
			t.Fatal(err)
		}
		rules := *cs[l.RulesContractID()]
		first := l.ContractView(&rules).CreatedEventBlob
		if again := l.ContractView(&rules).CreatedEventBlob; again != first {
			t.Fatal("the same contract's blob changed")
		}
		for range 2 { // made, then kept
			if id, tmpl, err := l.VerifyBlob(first); err != nil || id != rules.ContractID || tmpl != ledger.TemplateAmuletRules {
				t.Fatalf("VerifyBlob = %s, %s, %v", id, tmpl, err)
			}
		}
		raw, _ := base64.StdEncoding.DecodeString(first)
		raw[len(raw)/2] ^= 1
		if _, _, err := l.VerifyBlob(base64.StdEncoding.EncodeToString(raw)); !errors.Is(err, ledger.ErrForgedBlob) {
			t.Errorf("a changed blob after the kept one verified: %v", err)
		}

		moved := rules
		moved.SynchronizerID = "global-domain::elsewhere"
		blob := l.ContractView(&moved).CreatedEventBlob
		if blob == first {
			t.Fatal("a contract on another synchronizer kept its old blob")
		}
		if want := ledger.FreshBlob(l, &moved); blob != want {
			t.Error("the moved contract's blob is not the one the ledger makes")
		}
	})
}

// TestBlobFormats: a blob names its contract without its payload (ccw2),
// and a blob issued in the earlier format, payload included (ccw1), still
// verifies, a changed one of either not.
func TestBlobFormats(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		cs, err := store.ContractsByIDs(context.Background(), l.DB(), []coin.ContractID{l.RulesContractID()})
		if err != nil {
			t.Fatal(err)
		}
		rules := *cs[l.RulesContractID()]
		blob := ledger.FreshBlob(l, &rules)
		raw, err := base64.StdEncoding.DecodeString(blob)
		if err != nil || !strings.HasPrefix(string(raw), "ccw2{") || strings.Contains(string(raw), `"payload"`) {
			t.Fatalf("a new blob: %q, %v; want ccw2 without the payload", raw, err)
		}
		if len(raw) >= len(rules.Payload) {
			t.Errorf("a new blob of %d bytes for a payload of %d", len(raw), len(rules.Payload))
		}
		old := ledger.BlobV1(l, &rules)
		for name, b := range map[string]string{"ccw2": blob, "ccw1": old} {
			if id, tmpl, err := l.VerifyBlob(b); err != nil || id != rules.ContractID || tmpl != ledger.TemplateAmuletRules {
				t.Errorf("%s: VerifyBlob = %s, %s, %v", name, id, tmpl, err)
			}
			raw, _ := base64.StdEncoding.DecodeString(b)
			raw[len(raw)/2] ^= 1
			if _, _, err := l.VerifyBlob(base64.StdEncoding.EncodeToString(raw)); !errors.Is(err, ledger.ErrForgedBlob) {
				t.Errorf("%s: a changed blob verified: %v", name, err)
			}
		}
	})
}
