package topologytx

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"testing"
)

func TestOnboardingRoundTrip(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	txs := Onboarding("alice::1220ab", "1220ab", "participant::1220cd", key)
	want := []Tx{
		{Kind: NamespaceDelegation, Serial: 1, Namespace: "1220ab", Key: key},
		{Kind: PartyToParticipant, Serial: 1, Party: "alice::1220ab"},
		{Kind: PartyToKeyMapping, Serial: 1, Party: "alice::1220ab", Key: key},
	}
	for i, b := range txs {
		got, err := Decode(b)
		if err != nil {
			t.Fatalf("tx %d: %v", i, err)
		}
		if got.Kind != want[i].Kind || got.Serial != 1 || got.Party != want[i].Party || got.Namespace != want[i].Namespace || !bytes.Equal(got.Key, want[i].Key) {
			t.Errorf("tx %d = %+v, want %+v", i, got, want[i])
		}
	}
	// The multi-hash is Canton's: purpose 55, the count, each hash
	// length-prefixed in ascending order, as a multihash; order and
	// repetition of the transactions do not change it.
	hs := [][]byte{Hash(txs[0]), Hash(txs[1]), Hash(txs[2])}
	for i := range hs {
		for j := i + 1; j < len(hs); j++ {
			if bytes.Compare(hs[j], hs[i]) < 0 {
				hs[i], hs[j] = hs[j], hs[i]
			}
		}
	}
	in := binary.BigEndian.AppendUint32(nil, 55)
	in = binary.BigEndian.AppendUint32(in, 3)
	for _, h := range hs {
		in = binary.BigEndian.AppendUint32(in, 34)
		in = append(in, h...)
	}
	sum := sha256.Sum256(in)
	wantMH := append([]byte{0x12, 0x20}, sum[:]...)
	if got := MultiHash([][]byte{txs[2], txs[0], txs[1], txs[0]}); !bytes.Equal(got, wantMH) {
		t.Errorf("multi-hash %x, want %x", got, wantMH)
	}
}

func TestDecodeRefuses(t *testing.T) {
	for name, b := range map[string][]byte{
		"not protobuf":  {0xff, 0xff, 0xff},
		"empty":         {},
		"other version": transactionWithVersion(31),
	} {
		if _, err := Decode(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", name, err)
		}
	}
}

func transactionWithVersion(v uint64) []byte {
	b := Onboarding("a::1220ab", "1220ab", "p::1220cd", make([]byte, 32))[0]
	return append(b[:len(b)-1], byte(v)) // the version is the last byte
}
