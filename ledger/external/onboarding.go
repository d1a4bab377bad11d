package external

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
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/topologytx"
	"github.com/ccwallet/ccwallet/store"
)

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

// topologyTxs builds the three topology transactions that create party
// with key, in Canton's encoding (package topologytx): the namespace
// delegation, the hosting and the signing key.
func (s *Service) topologyTxs(party coin.PartyID, pub ed25519.PublicKey) [][]byte {
	return topologytx.Onboarding(string(party), party.Namespace(), s.l.ParticipantID(), pub)
}

// GenerateExternalTopology derives an external party's ID from a hint and
// its Ed25519 public key (hint::fingerprint(key)) and returns the topology
// transactions the party must sign. Nothing is stored.
func (s *Service) GenerateExternalTopology(hint, publicKey string) (coin.PartyID, []TopologyTx, error) {
	pub, err := ParsePublicKey("public_key", publicKey)
	if err != nil {
		return "", nil, err
	}
	if err := coin.ValidateHint(hint); err != nil {
		return "", nil, fault.Invalid("party_hint", "%v", err)
	}
	party, err := coin.NewPartyID(hint, coin.Fingerprint(pub))
	if err != nil {
		return "", nil, fault.Invalid("party_hint", "%v", err)
	}
	txs := s.topologyTxs(party, pub)
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
func (s *Service) SubmitExternalTopology(ctx context.Context, publicKey string, signed []SignedTopologyTx) (coin.PartyID, error) {
	pub, err := ParsePublicKey("public_key", publicKey)
	if err != nil {
		return "", err
	}
	if len(signed) == 0 {
		return "", fault.Invalid("signed_topology_txs", "is required")
	}
	raws := make([][]byte, len(signed))
	var party coin.PartyID
	for i, s := range signed {
		field := fmt.Sprintf("signed_topology_txs[%d]", i)
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s.Tx))
		if err != nil {
			return "", fault.Invalid(field+".topology_tx", "must be base64: %v", err)
		}
		tx, err := topologytx.Decode(b)
		if err != nil {
			return "", fault.Invalid(field+".topology_tx", "is not a topology transaction: %v", err)
		}
		if tx.Kind == topologytx.PartyToParticipant {
			party = coin.PartyID(tx.Party)
		}
		raws[i] = b
	}
	if party == "" {
		return "", fault.Invalid("signed_topology_txs", "the PartyToParticipant transaction is missing")
	}
	if _, err := coin.ParsePartyID(string(party)); err != nil {
		return "", fault.Invalid("signed_topology_txs", "%v", err)
	}
	if party.Namespace() != coin.Fingerprint(pub) {
		return "", fault.Invalid("public_key", "is not the key the topology transactions were generated for (party %s has namespace %s, the key's fingerprint is %s)",
			party, party.Namespace(), coin.Fingerprint(pub))
	}
	sigs := make([]string, len(signed))
	for i, s := range signed {
		sigs[i] = s.SignedHash
	}
	if err := s.checkOnboarding(party, pub, raws, func(i int, hash []byte) error {
		return VerifySignature(fmt.Sprintf("signed_topology_txs[%d].signed_hash", i), pub, hash, sigs[i])
	}); err != nil {
		return "", err
	}
	if err := s.storeExternalParty(ctx, party, pub); err != nil {
		return "", err
	}
	return party, nil
}

// checkOnboarding checks that raws are exactly the transactions
// topologyTxs makes for party and pub, each once, and calls verify with
// each one's index and hash (the rule both onboarding paths share).
func (s *Service) checkOnboarding(party coin.PartyID, pub ed25519.PublicKey, raws [][]byte, verify func(i int, hash []byte) error) error {
	want := s.topologyTxs(party, pub)
	if len(raws) != len(want) {
		return fault.Invalid("signed_topology_txs", "must hold the %d transactions topology/generate returned, got %d", len(want), len(raws))
	}
	seen := make([]bool, len(want))
	for i, b := range raws {
		field := fmt.Sprintf("signed_topology_txs[%d]", i)
		j := indexOf(want, b)
		if j < 0 {
			return fault.Invalid(field+".topology_tx", "is not one of the transactions topology/generate returned for this party and key (changed?)")
		}
		if seen[j] {
			return fault.Invalid(field+".topology_tx", "is given twice")
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
func (s *Service) storeExternalParty(ctx context.Context, party coin.PartyID, pub ed25519.PublicKey) error {
	err := s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		if err := x.LockParties(ctx, party); err != nil {
			return err
		}
		if _, err := store.PartyByID(ctx, x.DB(), party); err == nil {
			return fmt.Errorf("%w: party %s already exists", fault.ErrConflict, party)
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		return store.InsertParty(ctx, x.DB(), &store.Party{PartyID: party, Hint: party.Hint(), Kind: ledger.PartyKindExternal,
			PublicKey: hex.EncodeToString(pub), CreatedAt: s.l.Now()})
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
