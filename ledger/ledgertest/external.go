package ledgertest

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/external"
)

// ExternalParty creates an external party with a fresh Ed25519 key through
// the topology generate/sign/submit flow and returns it with its key.
func ExternalParty(t testing.TB, l *ledger.Ledger, hint string) (coin.PartyID, ed25519.PrivateKey) {
	t.Helper()
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	x := external.New(l)
	party, txs, err := x.GenerateExternalTopology(hint, hex.EncodeToString(pub))
	if err != nil {
		t.Fatalf("generate topology: %v", err)
	}
	signed := make([]external.SignedTopologyTx, len(txs))
	for i, tx := range txs {
		sig, err := external.SignHash(key, tx.Hash)
		if err != nil {
			t.Fatal(err)
		}
		signed[i] = external.SignedTopologyTx{Tx: tx.Tx, SignedHash: sig}
	}
	got, err := x.SubmitExternalTopology(context.Background(), hex.EncodeToString(pub), signed)
	if err != nil || got != party {
		t.Fatalf("submit topology = %s, %v; want %s", got, err, party)
	}
	return party, key
}

// Sign builds the submission of a prepared transaction signed by key.
func Sign(t testing.TB, party coin.PartyID, key ed25519.PrivateKey, p external.Prepared) external.Submission {
	t.Helper()
	sig, err := external.SignHash(key, p.TxHash)
	if err != nil {
		t.Fatal(err)
	}
	return external.Submission{Party: party, Transaction: p.Transaction, SignedTxHash: sig,
		PublicKey: hex.EncodeToString(key.Public().(ed25519.PublicKey))}
}
