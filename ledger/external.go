package ledger

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// PartyKindExternal marks a party whose signing key lives off the node.
const PartyKindExternal = "external"

// topologyVersion versions the topology transaction encoding (signing.go).
const topologyVersion = 1

// topologyKey is a public key inside a topology mapping.
type topologyKey struct {
	Format string `json:"format"`
	Scheme string `json:"scheme"`
	Key    string `json:"key"`
}

type topologyParticipant struct {
	Participant string `json:"participant"`
	Permission  string `json:"permission"`
}

// topologyMapping is one of the three mappings; the fields a type does not
// use stay empty and are omitted, so the encoding is canonical.
type topologyMapping struct {
	Type         string                `json:"type"`
	Namespace    string                `json:"namespace,omitempty"`
	TargetKey    *topologyKey          `json:"target_key,omitempty"`
	Restriction  string                `json:"restriction,omitempty"`
	Party        coin.PartyID          `json:"party,omitempty"`
	Threshold    int                   `json:"threshold,omitempty"`
	Participants []topologyParticipant `json:"participants,omitempty"`
	SigningKeys  []topologyKey         `json:"signing_keys,omitempty"`
}

type topologyTx struct {
	Version   int             `json:"version"`
	Serial    int             `json:"serial"`
	Operation string          `json:"operation"`
	Mapping   topologyMapping `json:"mapping"`
}

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
// with key: the namespace delegation, the hosting and the signing key.
func (l *Ledger) topologyTxs(party coin.PartyID, pub ed25519.PublicKey) [][]byte {
	key := topologyKey{Format: "raw", Scheme: "ed25519", Key: hex.EncodeToString(pub)}
	ms := []topologyMapping{
		{Type: "NamespaceDelegation", Namespace: party.Namespace(), TargetKey: &key, Restriction: "CanSignAllMappings"},
		{Type: "PartyToParticipant", Party: party, Threshold: 1, Participants: []topologyParticipant{{Participant: l.participantID(), Permission: "Confirmation"}}},
		{Type: "PartyToKeyMapping", Party: party, Threshold: 1, SigningKeys: []topologyKey{key}},
	}
	out := make([][]byte, len(ms))
	for i, m := range ms {
		out[i] = []byte(mustJSON(topologyTx{Version: topologyVersion, Serial: 1, Operation: "replace", Mapping: m}))
	}
	return out
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
		var tx topologyTx
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&tx); err != nil {
			return "", invalid(field+".topology_tx", "is not a topology transaction: %v", err)
		}
		if tx.Version != topologyVersion {
			return "", invalid(field+".topology_tx", "has version %d, want %d", tx.Version, topologyVersion)
		}
		if tx.Mapping.Type == "PartyToParticipant" {
			party = tx.Mapping.Party
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
	want := l.topologyTxs(party, pub)
	if len(raws) != len(want) {
		return "", invalid("signed_topology_txs", "must hold the %d transactions topology/generate returned, got %d", len(want), len(raws))
	}
	seen := make([]bool, len(want))
	for i, b := range raws {
		field := fmt.Sprintf("signed_topology_txs[%d]", i)
		j := indexOf(want, b)
		if j < 0 {
			return "", invalid(field+".topology_tx", "is not one of the transactions topology/generate returned for this party and key (changed?)")
		}
		if seen[j] {
			return "", invalid(field+".topology_tx", "is given twice")
		}
		seen[j] = true
		if err := VerifySignature(field+".signed_hash", pub, TopologyTxHash(b), signed[i].SignedHash); err != nil {
			return "", err
		}
	}
	err = l.change(ctx, func(ctx context.Context, c *change) error {
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
		return "", fmt.Errorf("create external party %s: %w", party, err)
	}
	return party, nil
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
