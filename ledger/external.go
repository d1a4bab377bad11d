package ledger

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/topologytx"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// PartyKindExternal marks a party whose signing key lives off the node.
const PartyKindExternal = "external"

// TopologyTx is a topology transaction to sign: base64 bytes and hex hash.
type TopologyTx struct {
	Tx   string
	Hash string
}

// SignedTopologyTx is a topology transaction with the party's signature.
type SignedTopologyTx struct {
	Tx         string
	SignedHash string
}

// participantID is this node's participant, which hosts external parties
// with confirmation rights.
func (l *Ledger) participantID() string { return "participant::" + l.namespace }

// topologyTxs builds the three topology transactions that create party
// with key, in Canton's encoding (package topologytx): the namespace
// delegation, the hosting and the signing key.
func (l *Ledger) topologyTxs(party coin.PartyID, pub ed25519.PublicKey) [][]byte {
	return topologytx.Onboarding(string(party), party.Namespace(), l.participantID(), pub)
}

// GenerateExternalTopology derives an external party's ID from a hint and
// its Ed25519 public key (hint::fingerprint(key)) and returns the topology
// transactions the party must sign. Nothing is stored.
func (l *Ledger) GenerateExternalTopology(hint, publicKey string) (coin.PartyID, []TopologyTx, error) {
	pub, err := ParsePublicKey("public_key", publicKey)
	if err != nil {
		return "", nil, err
	}
	if err := coin.ValidateHint(hint); err != nil {
		return "", nil, invalid("party_hint", "%v", err)
	}
	party, err := coin.NewPartyID(hint, coin.Fingerprint(pub))
	if err != nil {
		return "", nil, invalid("party_hint", "%v", err)
	}
	txs := l.topologyTxs(party, pub)
	out := make([]TopologyTx, len(txs))
	for i, b := range txs {
		out[i] = TopologyTx{Tx: base64.StdEncoding.EncodeToString(b), Hash: hex.EncodeToString(TopologyTxHash(b))}
	}
	return party, out, nil
}

// SubmitExternalTopology verifies the signed topology transactions and
// creates the external party. The set must be exactly the three
// transactions generate returns for this key, each signed by the key;
// anything else creates nothing. A party that exists already is a conflict.
func (l *Ledger) SubmitExternalTopology(ctx context.Context, publicKey string, signed []SignedTopologyTx) (coin.PartyID, error) {
	pub, err := ParsePublicKey("public_key", publicKey)
	if err != nil {
		return "", err
	}
	if len(signed) == 0 {
		return "", invalid("signed_topology_txs", "is required")
	}
	raws := make([][]byte, len(signed))
	var party coin.PartyID
	for i, s := range signed {
		field := fmt.Sprintf("signed_topology_txs[%d]", i)
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s.Tx))
		if err != nil {
			return "", invalid(field+".topology_tx", "must be base64: %v", err)
		}
		tx, err := topologytx.Decode(b)
		if err != nil {
			return "", invalid(field+".topology_tx", "is not a topology transaction: %v", err)
		}
		if tx.Kind == topologytx.PartyToParticipant {
			party = coin.PartyID(tx.Party)
		}
		raws[i] = b
	}
	if party == "" {
		return "", invalid("signed_topology_txs", "the PartyToParticipant transaction is missing")
	}
	if _, err := coin.ParsePartyID(string(party)); err != nil {
		return "", invalid("signed_topology_txs", "%v", err)
	}
	if party.Namespace() != coin.Fingerprint(pub) {
		return "", invalid("public_key", "is not the key the topology transactions were generated for (party %s has namespace %s, the key's fingerprint is %s)",
			party, party.Namespace(), coin.Fingerprint(pub))
	}
	sigs := make([]string, len(signed))
	for i, s := range signed {
		sigs[i] = s.SignedHash
	}
	if err := l.checkOnboarding(party, pub, raws, func(i int, hash []byte) error {
		return VerifySignature(fmt.Sprintf("signed_topology_txs[%d].signed_hash", i), pub, hash, sigs[i])
	}); err != nil {
		return "", err
	}
	if err := l.storeExternalParty(ctx, party, pub); err != nil {
		return "", err
	}
	return party, nil
}

// checkOnboarding checks that raws are exactly the transactions
// topologyTxs makes for party and pub, each once, and calls verify with
// each one's index and hash (the rule both onboarding paths share).
func (l *Ledger) checkOnboarding(party coin.PartyID, pub ed25519.PublicKey, raws [][]byte, verify func(i int, hash []byte) error) error {
	want := l.topologyTxs(party, pub)
	if len(raws) != len(want) {
		return invalid("signed_topology_txs", "must hold the %d transactions topology/generate returned, got %d", len(want), len(raws))
	}
	seen := make([]bool, len(want))
	for i, b := range raws {
		field := fmt.Sprintf("signed_topology_txs[%d]", i)
		j := indexOf(want, b)
		if j < 0 {
			return invalid(field+".topology_tx", "is not one of the transactions topology/generate returned for this party and key (changed?)")
		}
		if seen[j] {
			return invalid(field+".topology_tx", "is given twice")
		}
		seen[j] = true
		if err := verify(i, TopologyTxHash(b)); err != nil {
			return err
		}
	}
	return nil
}

// storeExternalParty stores party with key pub; a party that exists
// already is ErrConflict.
func (l *Ledger) storeExternalParty(ctx context.Context, party coin.PartyID, pub ed25519.PublicKey) error {
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		if err := l.lockParties(ctx, c.tx, party); err != nil {
			return err
		}
		if _, err := store.PartyByID(ctx, c.tx, party); err == nil {
			return fmt.Errorf("%w: party %s already exists", ErrConflict, party)
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		return store.InsertParty(ctx, c.tx, &store.Party{PartyID: party, Hint: party.Hint(), Kind: PartyKindExternal,
			PublicKey: hex.EncodeToString(pub), CreatedAt: l.now()})
	})
	if err != nil {
		return fmt.Errorf("create external party %s: %w", party, err)
	}
	return nil
}

func indexOf(list [][]byte, b []byte) int {
	for i, x := range list {
		if bytes.Equal(x, b) {
			return i
		}
	}
	return -1
}

// externalParty loads an external party and its key; a party that is not
// external is a validation error, an unknown one ErrNotFound.
func (l *Ledger) externalParty(ctx context.Context, db bun.IDB, party coin.PartyID) (ed25519.PublicKey, error) {
	p, err := store.PartyByID(ctx, db, party)
	if err != nil {
		return nil, fmt.Errorf("party %s: %w", party, err)
	}
	return externalKey(p)
}

// externalKey is party row p's key; a party that is not external is a
// validation error.
func externalKey(p *store.Party) (ed25519.PublicKey, error) {
	if p.Kind != PartyKindExternal || p.PublicKey == "" {
		return nil, invalid("party_id", "%s is not an external party", p.PartyID)
	}
	return ParsePublicKey("public_key", p.PublicKey)
}
