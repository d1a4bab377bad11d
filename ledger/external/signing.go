package external

// External-party signing formats. Pure functions, no state.
//
// Topology transactions (topology/generate, topology/submit):
//
//   - topology_tx is base64 (standard, padded) of the transaction bytes,
//     Canton's own encoding: an UntypedVersionedMessage around a v30
//     TopologyTransaction protobuf (package topologytx): the root
//     NamespaceDelegation, PartyToParticipant (threshold 1, this
//     participant confirming) and PartyToKeyMapping (threshold 1), serial 1.
//   - hash = hex(0x12 0x20 || SHA-256(BE_int32(11) || tx_bytes)), exactly as
//     Canton hashes a topology transaction (purpose 11, multihash prefix).
//   - signed_hash = hex of the 64-byte Ed25519 signature (r||s) over the 34
//     hash bytes (hex-decoded hash, prefix included).
//
// Prepared transactions (prepare/submit of external-party actions):
//
//   - transaction is base64 of canonical JSON of PreparedBody (version 1):
//     {"version":1,"kind","party","nonce","created_at","expires_at",
//     "synchronizer_id","contract_ids":[...],"args":{...kind-specific...}};
//     amounts are strings with 10 decimals, times RFC 3339 UTC with
//     microseconds. The body encoding is ours; Canton's is a protobuf.
//   - tx_hash = hex(SHA-256(BE_int32(48) || 0x02 || tx_bytes)): raw 32
//     bytes, no multihash prefix, starting like Canton's V2 scheme (purpose
//     48 = PreparedSubmission, version byte 2).
//   - signed_tx_hash = hex of the 64-byte Ed25519 signature over the 32
//     hash bytes.
//
// The server never trusts a hash a client sends: it recomputes it from the
// transaction bytes, so a client can verify the hash it signs the same way.

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strings"

	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/topologytx"
)

// Hash purposes, as Canton numbers them (HashPurpose.scala).
const (
	purposePreparedSubmission = 48
	// preparedHashVersion is the version byte after the purpose, as in
	// Canton's hashing scheme V2.
	preparedHashVersion = 0x02
)

// TopologyTxHash returns the 34-byte multihash a topology transaction's
// signature covers: 0x12 0x20 || SHA-256(BE_int32(11) || tx).
func TopologyTxHash(tx []byte) []byte { return topologytx.Hash(tx) }

// PreparedTxHash returns the 32-byte hash a prepared transaction's
// signature covers: SHA-256(BE_int32(48) || 0x02 || tx).
func PreparedTxHash(tx []byte) []byte {
	h := sha256.New()
	h.Write(beInt32(purposePreparedSubmission))
	h.Write([]byte{preparedHashVersion})
	h.Write(tx)
	return h.Sum(nil)
}

func beInt32(n uint32) []byte {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], n)
	return b[:]
}

// ParsePublicKey decodes a hex raw Ed25519 public key (32 bytes), the only
// key type external parties may use here.
func ParsePublicKey(field, s string) (ed25519.PublicKey, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fault.Invalid(field, "is required (hex of a raw 32-byte Ed25519 public key)")
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, fault.Invalid(field, "must be hex: %v", err)
	}
	if len(b) != ed25519.PublicKeySize {
		return nil, fault.Invalid(field, "must be a raw Ed25519 public key of 32 bytes, got %d bytes%s; only Ed25519 keys are supported", len(b), keyKind(b))
	}
	return ed25519.PublicKey(b), nil
}

// ed25519FromSPKI is the raw key inside b, a DER SubjectPublicKeyInfo of
// an Ed25519 key (RFC 8410); ok is false for anything else.
func ed25519FromSPKI(b []byte) (pub ed25519.PublicKey, ok bool) {
	if len(b) != len(ed25519SPKIPrefix)+ed25519.PublicKeySize || !bytes.HasPrefix(b, ed25519SPKIPrefix) {
		return nil, false
	}
	return ed25519.PublicKey(b[len(ed25519SPKIPrefix):]), true
}

// ed25519SPKIPrefix starts the DER SubjectPublicKeyInfo of an Ed25519 key
// (RFC 8410): SEQUENCE, AlgorithmIdentifier 1.3.101.112, BIT STRING.
var ed25519SPKIPrefix = []byte{0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00}

// keyKind names what a wrong-sized public key most likely is, so the
// refusal tells the integrator what to change.
func keyKind(b []byte) string {
	switch {
	case len(b) == len(ed25519SPKIPrefix)+ed25519.PublicKeySize && bytes.HasPrefix(b, ed25519SPKIPrefix):
		return " (a DER/X.509 Ed25519 key: send its last 32 bytes, the raw key)"
	case len(b) == 33 && (b[0] == 0x02 || b[0] == 0x03):
		return " (a compressed ECDSA key, secp256k1 or P-256)"
	case len(b) == 65 && b[0] == 0x04:
		return " (an uncompressed ECDSA key, secp256k1 or P-256)"
	case len(b) > 0 && b[0] == 0x30:
		return " (a DER/X.509 key of another type)"
	}
	return ""
}

// VerifySignature checks a hex Ed25519 signature (r||s, 64 bytes) of msg.
func VerifySignature(field string, pub ed25519.PublicKey, msg []byte, sigHex string) error {
	sig, err := hex.DecodeString(strings.TrimSpace(sigHex))
	if err != nil {
		return fault.Invalid(field, "must be hex: %v", err)
	}
	if len(sig) != ed25519.SignatureSize {
		return fault.Invalid(field, "must be a 64-byte Ed25519 signature (r||s), got %d bytes", len(sig))
	}
	if len(pub) != ed25519.PublicKeySize {
		return fault.Invalid("public_key", "must be a raw Ed25519 public key of 32 bytes")
	}
	if !ed25519.Verify(pub, msg, sig) {
		return fault.Invalid(field, "signature does not verify against the public key for hash %s", hex.EncodeToString(msg))
	}
	return nil
}

// SignHash signs a hex hash with an Ed25519 private key and returns the hex
// signature, as an external party's client does (see ccwallet external sign).
func SignHash(key ed25519.PrivateKey, hashHex string) (string, error) {
	msg, err := hex.DecodeString(strings.TrimSpace(hashHex))
	if err != nil {
		return "", fault.Invalid("hash", "must be hex: %v", err)
	}
	if len(msg) != 32 && len(msg) != 34 {
		return "", fault.Invalid("hash", "must be a 32-byte transaction hash or a 34-byte topology multihash, got %d bytes", len(msg))
	}
	return hex.EncodeToString(ed25519.Sign(key, msg)), nil
}

// Signature formats and the algorithm external parties sign with, as
// the Ledger API names them.
const (
	SignatureFormatConcat   = "SIGNATURE_FORMAT_CONCAT"
	SignatureFormatRaw      = "SIGNATURE_FORMAT_RAW"
	SigningAlgorithmEd25519 = "SIGNING_ALGORITHM_SPEC_ED25519"
)

// ExternalSignature is one signature of a prepared transaction's hash.
type ExternalSignature struct {
	Format    string
	Signature []byte
	// SignedBy is the fingerprint of the signing key (coin.Fingerprint).
	SignedBy  string
	Algorithm string
}
