// Package topologytx encodes and decodes the three topology transactions
// that onboard an external party, in Canton's own wire format, so a client
// that decodes them (the wallet SDK's visualiser, Canton's tools) reads
// what it would read from Canton:
//
//   - the bytes are an UntypedVersionedMessage {data = 1 (bytes), version
//     = 2 (int32, 30)} whose data is a protobuf
//     com.digitalasset.canton.protocol.v30.TopologyTransaction {operation
//     = 1 (ADD_REPLACE = 1), serial = 2, mapping = 3};
//   - TopologyMapping is a oneof: namespace_delegation = 1,
//     party_to_participant = 9, party_to_key_mapping = 16;
//   - NamespaceDelegation {namespace = 1, target_key = 2,
//     is_root_delegation = 3, can_sign_all_mappings = 4 (empty)};
//   - PartyToParticipant {party = 1, threshold = 2, participants = 3
//     {participant_uid = 1, permission = 2 (CONFIRMATION = 2)}};
//   - PartyToKeyMapping {party = 1, threshold = 3, signing_keys = 4};
//   - crypto.v30.SigningPublicKey {format = 2 (RAW = 3), public_key = 3,
//     scheme = 4 (ED25519 = 1), usage = 5 (packed), key_spec = 6
//     (EC_CURVE25519 = 1)}.
//
// Hashes are Canton's: a transaction's is the multihash
// 0x12 0x20 || SHA-256(BE_int32(11) || bytes); the multi-hash one
// signature may cover instead is the multihash of
// SHA-256(BE_int32(55) || BE_int32(n) || for each hash in ascending
// order: BE_int32(34) || hash) (TopologyTransactionSignature.scala).
// Pure functions, no state.
package topologytx

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

// ProtoVersion is the TopologyTransaction protobuf version (v30).
const ProtoVersion = 30

// Hash purposes, as Canton numbers them (HashPurpose.scala).
const (
	purposeTopologyTx      = 11
	purposeMultiTopologyTx = 55
)

// Mapping kinds.
const (
	NamespaceDelegation = "NamespaceDelegation"
	PartyToParticipant  = "PartyToParticipant"
	PartyToKeyMapping   = "PartyToKeyMapping"
)

// ErrMalformed is a byte string that is not one of the transactions this
// package encodes.
var ErrMalformed = errors.New("not a topology transaction")

// Tx is one decoded onboarding transaction: the fields a check needs.
type Tx struct {
	Kind   string
	Serial uint32
	// Party is PartyToParticipant's and PartyToKeyMapping's party;
	// Namespace is NamespaceDelegation's.
	Party, Namespace string
	// Key is the raw Ed25519 key of NamespaceDelegation's target key or
	// PartyToKeyMapping's first signing key.
	Key []byte
}

// Hash is the 34-byte multihash a signature of tx covers.
func Hash(tx []byte) []byte { return cantonHash(purposeTopologyTx, tx) }

// MultiHash is the 34-byte multihash one signature covering all of txs
// signs; a transaction given twice counts once, as in Canton's set.
func MultiHash(txs [][]byte) []byte {
	hs := make([][]byte, 0, len(txs))
	for _, t := range txs {
		hs = append(hs, Hash(t))
	}
	slices.SortFunc(hs, bytes.Compare)
	hs = slices.CompactFunc(hs, bytes.Equal)
	b := binary.BigEndian.AppendUint32(nil, uint32(len(hs)))
	for _, h := range hs {
		b = binary.BigEndian.AppendUint32(b, uint32(len(h)))
		b = append(b, h...)
	}
	return cantonHash(purposeMultiTopologyTx, b)
}

func cantonHash(purpose uint32, b []byte) []byte {
	h := sha256.New()
	h.Write(binary.BigEndian.AppendUint32(nil, purpose))
	h.Write(b)
	return append([]byte{0x12, 0x20}, h.Sum(nil)...)
}

// Onboarding returns the three transactions that create party (whose
// namespace is namespace) with the raw Ed25519 key key, hosted with
// confirmation rights on participant: the root namespace delegation, the
// hosting and the signing key, each serial 1.
func Onboarding(party, namespace, participant string, key []byte) [][]byte {
	pk := signingKey(key)
	var nd enc
	nd.str(1, namespace)
	nd.msg(2, pk)
	nd.varint(3, 1) // is_root_delegation, kept for older readers
	nd.msg(4, nil)  // can_sign_all_mappings
	var hp enc
	hp.str(1, participant)
	hp.varint(2, 2) // PARTICIPANT_PERMISSION_CONFIRMATION
	var p2p enc
	p2p.str(1, party)
	p2p.varint(2, 1)
	p2p.msg(3, hp)
	var p2k enc
	p2k.str(1, party)
	p2k.varint(3, 1)
	p2k.msg(4, pk)
	return [][]byte{transaction(1, nd), transaction(9, p2p), transaction(16, p2k)}
}

func signingKey(key []byte) []byte {
	var k enc
	k.varint(2, 3) // CRYPTO_KEY_FORMAT_RAW
	k.bytes(3, key)
	k.varint(4, 1) // SIGNING_KEY_SCHEME_ED25519
	// usage: NAMESPACE (1) and PROTOCOL (4), packed.
	k = protowire.AppendTag(k, 5, protowire.BytesType)
	k = protowire.AppendBytes(k, []byte{1, 4})
	k.varint(6, 1) // SIGNING_KEY_SPEC_EC_CURVE25519
	return k
}

func transaction(mappingField protowire.Number, m []byte) []byte {
	var mapping enc
	mapping.msg(mappingField, m)
	var tx enc
	tx.varint(1, 1) // TOPOLOGY_CHANGE_OP_ADD_REPLACE
	tx.varint(2, 1) // serial
	tx.msg(3, mapping)
	var v enc
	v.msg(1, tx)
	v.varint(2, ProtoVersion)
	return v
}

// Decode reads one onboarding transaction. Anything but the three kinds
// above, an operation other than add/replace or another proto version is
// ErrMalformed.
func Decode(b []byte) (Tx, error) {
	var data []byte
	var version uint64
	if err := fields(b, func(num protowire.Number, v uint64, bs []byte) {
		switch num {
		case 1:
			data = bs
		case 2:
			version = v
		}
	}); err != nil {
		return Tx{}, err
	}
	if version != ProtoVersion {
		return Tx{}, fmt.Errorf("%w: version %d, want %d", ErrMalformed, version, ProtoVersion)
	}
	var op, serial uint64
	var mapping []byte
	if err := fields(data, func(num protowire.Number, v uint64, bs []byte) {
		switch num {
		case 1:
			op = v
		case 2:
			serial = v
		case 3:
			mapping = bs
		}
	}); err != nil {
		return Tx{}, err
	}
	if op != 1 {
		return Tx{}, fmt.Errorf("%w: operation %d is not add/replace", ErrMalformed, op)
	}
	t := Tx{Serial: uint32(serial)}
	var kind protowire.Number
	var body []byte
	if err := fields(mapping, func(num protowire.Number, _ uint64, bs []byte) { kind, body = num, bs }); err != nil {
		return Tx{}, err
	}
	var err error
	switch kind {
	case 1:
		t.Kind = NamespaceDelegation
		err = fields(body, func(num protowire.Number, _ uint64, bs []byte) {
			switch num {
			case 1:
				t.Namespace = string(bs)
			case 2:
				t.Key = keyBytes(bs)
			}
		})
	case 9:
		t.Kind = PartyToParticipant
		err = fields(body, func(num protowire.Number, _ uint64, bs []byte) {
			if num == 1 {
				t.Party = string(bs)
			}
		})
	case 16:
		t.Kind = PartyToKeyMapping
		err = fields(body, func(num protowire.Number, _ uint64, bs []byte) {
			switch num {
			case 1:
				t.Party = string(bs)
			case 4:
				if t.Key == nil {
					t.Key = keyBytes(bs)
				}
			}
		})
	default:
		return Tx{}, fmt.Errorf("%w: mapping %d is not one that onboards a party", ErrMalformed, kind)
	}
	return t, err
}

func keyBytes(b []byte) []byte {
	var key []byte
	_ = fields(b, func(num protowire.Number, _ uint64, bs []byte) {
		if num == 3 {
			key = bs
		}
	})
	return key
}

type enc []byte

func (b *enc) str(num protowire.Number, s string) {
	*b = protowire.AppendTag(*b, num, protowire.BytesType)
	*b = protowire.AppendString(*b, s)
}

func (b *enc) bytes(num protowire.Number, v []byte) {
	*b = protowire.AppendTag(*b, num, protowire.BytesType)
	*b = protowire.AppendBytes(*b, v)
}

func (b *enc) msg(num protowire.Number, m []byte) { b.bytes(num, m) }

func (b *enc) varint(num protowire.Number, v uint64) {
	*b = protowire.AppendTag(*b, num, protowire.VarintType)
	*b = protowire.AppendVarint(*b, v)
}

// fields walks a message's fields; length-delimited values come as bs,
// varints as v; other wire types are skipped.
func fields(b []byte, fn func(num protowire.Number, v uint64, bs []byte)) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%w: %v", ErrMalformed, protowire.ParseError(n))
		}
		b = b[n:]
		var v uint64
		var bs []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			bs, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return fmt.Errorf("%w: field %d: %v", ErrMalformed, num, protowire.ParseError(n))
		}
		b = b[n:]
		fn(num, v, bs)
	}
	return nil
}
