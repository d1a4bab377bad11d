package external_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/fault"
)

func TestHashFormats(t *testing.T) {
	tx := []byte(`{"version":1}`)
	topo := sha256.Sum256(append([]byte{0, 0, 0, 11}, tx...))
	prep := sha256.Sum256(append([]byte{0, 0, 0, 48, 2}, tx...))
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"topology is a multihash over purpose 11", external.TopologyTxHash(tx), "1220" + hex.EncodeToString(topo[:])},
		{"prepared is raw sha256 over purpose 48 and version 2", external.PreparedTxHash(tx), hex.EncodeToString(prep[:])},
		{"empty topology tx", external.TopologyTxHash(nil), "1220" + hex.EncodeToString(func() []byte { s := sha256.Sum256([]byte{0, 0, 0, 11}); return s[:] }())},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := hex.EncodeToString(tc.got); got != tc.want {
				t.Errorf("hash = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestParsePublicKey(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(nil)
	tests := []struct {
		name, in, wantErr string
	}{
		{"raw ed25519", hex.EncodeToString(pub), ""},
		{"surrounding space", " " + hex.EncodeToString(pub) + " ", ""},
		{"empty", "", "is required"},
		{"not hex", "zz", "must be hex"},
		{"too short", hex.EncodeToString(pub[:31]), "32 bytes, got 31"},
		{"DER/X.509 wrapped", "302a300506032b6570032100" + hex.EncodeToString(pub), "got 44 bytes (a DER/X.509 Ed25519 key: send its last 32 bytes"},
		{"secp256k1 compressed", "02" + hex.EncodeToString(pub), "got 33 bytes (a compressed ECDSA key"},
		{"P-256 uncompressed", "04" + hex.EncodeToString(pub) + hex.EncodeToString(pub), "got 65 bytes (an uncompressed ECDSA key"},
		{"P-256 DER", "3059301306072a8648ce3d020106082a8648ce3d03010703420004" + hex.EncodeToString(pub) + hex.EncodeToString(pub), "(a DER/X.509 key of another type); only Ed25519 keys are supported"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := external.ParsePublicKey("public_key", tc.in)
			checkErr(t, err, tc.wantErr)
		})
	}
}

func TestVerifySignature(t *testing.T) {
	pub, key, _ := ed25519.GenerateKey(nil)
	otherPub, otherKey, _ := ed25519.GenerateKey(nil)
	msg := external.PreparedTxHash([]byte("tx"))
	sig := ed25519.Sign(key, msg)
	flipped := append([]byte(nil), sig...)
	flipped[5] ^= 0x01
	flippedMsg := append([]byte(nil), msg...)
	flippedMsg[0] ^= 0x80
	tests := []struct {
		name    string
		pub     ed25519.PublicKey
		msg     []byte
		sig     string
		wantErr string
	}{
		{"valid", pub, msg, hex.EncodeToString(sig), ""},
		{"bit flipped in signature", pub, msg, hex.EncodeToString(flipped), "does not verify"},
		{"bit flipped in hash", pub, flippedMsg, hex.EncodeToString(sig), "does not verify"},
		{"signed by another key", pub, msg, hex.EncodeToString(ed25519.Sign(otherKey, msg)), "does not verify"},
		{"verified against another key", otherPub, msg, hex.EncodeToString(sig), "does not verify"},
		{"short signature", pub, msg, hex.EncodeToString(sig[:63]), "64-byte"},
		{"not hex", pub, msg, "xyz", "must be hex"},
		{"empty", pub, msg, "", "64-byte"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkErr(t, external.VerifySignature("signed_tx_hash", tc.pub, tc.msg, tc.sig), tc.wantErr)
		})
	}
}

func TestSignHash(t *testing.T) {
	pub, key, _ := ed25519.GenerateKey(nil)
	for _, n := range []int{32, 34} {
		h := hex.EncodeToString(make([]byte, n))
		sig, err := external.SignHash(key, h)
		if err != nil {
			t.Fatal(err)
		}
		if err := external.VerifySignature("s", pub, make([]byte, n), sig); err != nil {
			t.Errorf("%d-byte hash: %v", n, err)
		}
	}
	if _, err := external.SignHash(key, "00"); err == nil {
		t.Error("signing a 1-byte hash succeeded")
	}
}

func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("err = %v, want nil", err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("err = %v, want one containing %q", err, want)
	case want != "" && !fault.IsValidation(err):
		t.Errorf("err = %v is not a validation error", err)
	}
}
