package external_test

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

func signTopology(t *testing.T, key ed25519.PrivateKey, txs []external.TopologyTx) []external.SignedTopologyTx {
	t.Helper()
	out := make([]external.SignedTopologyTx, len(txs))
	for i, tx := range txs {
		sig, err := external.SignHash(key, tx.Hash)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = external.SignedTopologyTx{Tx: tx.Tx, SignedHash: sig}
	}
	return out
}

func TestExternalTopology(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		x := external.New(l)
		pub, key, _ := ed25519.GenerateKey(nil)
		_, otherKey, _ := ed25519.GenerateKey(nil)
		pubHex := hex.EncodeToString(pub)
		party, txs, err := x.GenerateExternalTopology("ext-alice", pubHex)
		if err != nil {
			t.Fatal(err)
		}
		if want := "ext-alice::" + coin.Fingerprint(pub); string(party) != want || len(txs) != 3 {
			t.Fatalf("party = %s (%d txs), want %s and 3 txs", party, len(txs), want)
		}
		for _, tx := range txs {
			raw, _ := base64.StdEncoding.DecodeString(tx.Tx)
			if tx.Hash != hex.EncodeToString(external.TopologyTxHash(raw)) || !strings.HasPrefix(tx.Hash, "1220") {
				t.Errorf("hash %s does not match its transaction", tx.Hash)
			}
		}
		good := signTopology(t, key, txs)
		tampered := func(f func(s []external.SignedTopologyTx) []external.SignedTopologyTx) []external.SignedTopologyTx {
			c := append([]external.SignedTopologyTx(nil), good...)
			return f(c)
		}
		otherPub, _, _ := ed25519.GenerateKey(nil)
		refused := []struct {
			name, key string
			txs       []external.SignedTopologyTx
			want      string
		}{
			{"wrong signature", pubHex, tampered(func(s []external.SignedTopologyTx) []external.SignedTopologyTx {
				s[1].SignedHash = s[0].SignedHash
				return s
			}), "does not verify"},
			{"signed by another key", pubHex, signTopology(t, otherKey, txs), "does not verify"},
			{"a different key submitted", hex.EncodeToString(otherPub), good, "is not the key"},
			{"tampered transaction", pubHex, tampered(func(s []external.SignedTopologyTx) []external.SignedTopologyTx {
				raw, _ := base64.StdEncoding.DecodeString(s[2].Tx)
				// An extra field decodes the same but is not the transaction
				// generate returned.
				s[2].Tx = base64.StdEncoding.EncodeToString(append(raw, 0x18, 0x02))
				return s
			}), "is not one of the transactions"},
			{"missing transaction", pubHex, good[:2], "must hold the 3"},
			{"duplicated transaction", pubHex, []external.SignedTopologyTx{good[0], good[1], good[1]}, "twice"},
			{"not base64", pubHex, tampered(func(s []external.SignedTopologyTx) []external.SignedTopologyTx {
				s[0].Tx = "%%%"
				return s
			}), "base64"},
			{"secp256k1 key", "02" + pubHex, good, "32 bytes"},
			{"nothing", pubHex, nil, "is required"},
		}
		for _, tc := range refused {
			_, err := x.SubmitExternalTopology(ctx, tc.key, tc.txs)
			if err == nil || !fault.IsValidation(err) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: err = %v, want a validation error containing %q", tc.name, err, tc.want)
			}
			if err := l.KnownParty(ctx, party); !errors.Is(err, fault.ErrNotFound) {
				t.Fatalf("%s: party exists after a refused submission (%v)", tc.name, err)
			}
		}
		// Asked before the party exists, the key is not found; the answer
		// must not be remembered past the party's creation.
		if _, err := x.ExternalPartyKey(ctx, party); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("key of a party not yet submitted = %v, want ErrNotFound", err)
		}
		got, err := x.SubmitExternalTopology(ctx, pubHex, good)
		if err != nil || got != party {
			t.Fatalf("submit = %s, %v", got, err)
		}
		local := ledgertest.Party(t, l)
		for range 2 { // the second answers are remembered ones
			if k, err := x.ExternalPartyKey(ctx, party); err != nil || !k.Equal(pub) {
				t.Errorf("key of the external party = %x, %v; want %x", k, err, pub)
			}
			if _, err := x.ExternalPartyKey(ctx, local); !fault.IsValidation(err) {
				t.Errorf("key of a local party = %v, want a validation error", err)
			}
		}
		if _, err := x.SubmitExternalTopology(ctx, pubHex, good); !errors.Is(err, fault.ErrConflict) {
			t.Errorf("replayed submission = %v, want ErrConflict", err)
		}
	})
}
