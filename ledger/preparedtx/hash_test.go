package preparedtx

import (
	"bytes"
	"encoding/hex"
	"errors"
	"reflect"
	"testing"
)

// The vectors are Canton's own (community/common/src/test/scala/com/
// digitalasset/canton/protocol/hash: ValueHashTest, v2/NodeHashTest,
// v2/MetadataHashTest), so the hash matches what a real client computes.

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestValueHashVectors(t *testing.T) {
	id := &Identifier{PackageID: "package", ModuleName: "module", EntityName: "name"}
	tru := Value{Kind: KindBool, Bool: true}
	for _, c := range []struct {
		name string
		v    Value
		want string
	}{
		{"unit", Value{Kind: KindUnit}, "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"},
		{"true", tru, "9dcf97a184f32623d11a73124ceb99a5709b083721e878a16d78f596718ba7b2"},
		{"false", Value{Kind: KindBool}, "47dc540c94ceb704a23875c11273e16bb0b8a87aed84de911f2133568115f254"},
		{"text", Value{Kind: KindText, Str: "hello world!"}, "a24821b4741b3616920a37dfccf3b1e271184c82fc89377ab22e5d96d9330e5c"},
		{"numeric", Value{Kind: KindNumeric, Str: "125.1002"}, "fd23ea3b05b8b0e1d15902cccf7c6c0e6e292f0ae3e96513c8d8cec9d4f9bda9"},
		{"contract id", Value{Kind: KindContractID, Str: "0059b59ad7a6b6066e77b91ced54b8282f0e24e7089944685cb8f22f32fcbc4e1b"}, "6a3e241cebc1dc5e7574be0cf122edc9cb65ffc3fa59fb069c5ab3bbb4598414"},
		{"enum", Value{Kind: KindEnum, ID: id, Str: "ENUM"}, "9c8f627c22d6871e111e1f5d1980a6a24bcc6311bbc73fd3932a4d79fa9c09f2"},
		{"int64", Value{Kind: KindInt64, Int: 10}, "a74730eb88baf5118934d3675ccf50eac1e4e873000ecd75b5917c78ee30ef26"},
		{"variant", Value{Kind: KindVariant, ID: id, Str: "ENUM", Elem: &tru}, "bceee77c48d80db35f237c3877c6711db19a8c135d2d0323c21f01afc2eb7612"},
	} {
		got, err := ValueHash(c.v)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if hex.EncodeToString(got) != c.want {
			t.Errorf("%s: hash %x, want %s", c.name, got, c.want)
		}
	}
}

func TestCreateNodeHashVector(t *testing.T) {
	c := Create{
		LfVersion: "2.1", ContractID: "0007e7b5534931dfca8e1b485c105bae4e10808bd13ddc8e897f258015f9d921c5", PackageName: "package-name-0",
		TemplateID: Identifier{"package", "module", "name"}, Argument: Value{Kind: KindText, Str: "hello"},
		Signatories: []string{"alice", "bob"}, Stakeholders: []string{"alice", "charlie"},
	}
	tx := Transaction{Version: "2.1", Roots: []string{"0"}, Nodes: []Node{{ID: "0", Create: &c}},
		Seeds: []NodeSeed{{NodeID: 0, Seed: mustHex(t, "926bbb6f341bc0092ae65d06c6e284024907148cc29543ef6bff0930f5d52c19")}}}
	h := &hasher{nodes: map[string]*Node{"0": &tx.Nodes[0]}, seeds: map[string][]byte{"0": tx.Seeds[0].Seed}}
	got, err := h.nodeHash("0")
	if err != nil {
		t.Fatal(err)
	}
	if want := "6d2cfe58c2294000592034f4bdfe397fe246901bb8b63e3b9e041bb478e174b7"; hex.EncodeToString(got) != want {
		t.Errorf("create node hash %x, want %s", got, want)
	}
}

// canton's metadata vector.
func cantonMetadata() Metadata {
	min, max := uint64(0xaaaa), uint64(0xbbbb)
	input := func(cid, party string, at uint64) InputContract {
		return InputContract{CreatedAt: at, Create: Create{
			LfVersion: "2.1", ContractID: cid, PackageName: "PkgName", TemplateID: Identifier{"-dummyPkg-", "DummyModule", "dummyName"},
			Argument:    Value{Kind: KindContractID, Str: "0097a092402108f5593bac7fb3c909cd316910197dd98d603042a45ab85c81e0fd"},
			Signatories: []string{party}, Stakeholders: []string{party},
		}}
	}
	return Metadata{
		ActAs: []string{"alice", "bob"}, CommandID: "command-id", TransactionUUID: "4c6471d3-4e09-49dd-addf-6cd90e19c583",
		SynchronizerID: "synchronizer::id", MinLedgerEffectiveTime: &min, MaxLedgerEffectiveTime: &max,
		InputContracts: []InputContract{
			input("0007e7b5534931dfca8e1b485c105bae4e10808bd13ddc8e897f258015f9d921c5", "alice", 864000000000),
			input("0059b59ad7a6b6066e77b91ced54b8282f0e24e7089944685cb8f22f32fcbc4e1b", "bob", 1728000000000),
		},
	}
}

func TestMetadataHashVector(t *testing.T) {
	m := cantonMetadata()
	got, err := MetadataHash(&m)
	if err != nil {
		t.Fatal(err)
	}
	if want := "6e89fcbcc9605179a47919b5e65a864e470e7a133f4f9f39b1e4545b223db769"; hex.EncodeToString(got) != want {
		t.Errorf("metadata hash %x, want %s", got, want)
	}
}

// sample is a prepared transaction with every value kind.
func sample() *Prepared {
	id := &Identifier{"pkg", "Mod.Sub", "Rec"}
	some := Value{Kind: KindText, Str: "x"}
	arg := Value{Kind: KindRecord, ID: id, Fields: []Field{
		{"u", Value{Kind: KindUnit}}, {"b", Value{Kind: KindBool}}, {"i", Value{Kind: KindInt64, Int: -5}},
		{"d", Value{Kind: KindDate, Int: 20000}}, {"t", Value{Kind: KindTimestamp, Int: 1_700_000_000_000_000}},
		{"n", Value{Kind: KindNumeric, Str: "1.5000000000"}}, {"p", Value{Kind: KindParty, Str: "alice::1220ab"}},
		{"c", Value{Kind: KindContractID, Str: "00ab"}}, {"none", Value{Kind: KindOptional}}, {"some", Value{Kind: KindOptional, Elem: &some}},
		{"l", Value{Kind: KindList, List: []Value{some, some}}}, {"m", Value{Kind: KindTextMap, Fields: []Field{{"k", some}}}},
		{"g", Value{Kind: KindGenMap, Entries: [][2]Value{{some, some}}}}, {"v", Value{Kind: KindVariant, ID: id, Str: "C", Elem: &some}},
		{"e", Value{Kind: KindEnum, Str: "E"}},
	}}
	min := uint64(3)
	m := cantonMetadata()
	m.MinLedgerEffectiveTime, m.MaxLedgerEffectiveTime, m.PreparationTime = &min, nil, 99
	return &Prepared{
		Transaction: Transaction{Version: "2.1", Roots: []string{"0"}, Nodes: []Node{
			{ID: "0", Exercise: &Exercise{LfVersion: "2.1", ContractID: "00cd", PackageName: "p", TemplateID: *id, Signatories: []string{"a"},
				Stakeholders: []string{"a", "b"}, ActingParties: []string{"a"}, InterfaceID: id, ChoiceID: "Go", ChosenValue: arg, Consuming: true,
				Children: []string{"1"}, ChoiceObservers: []string{"c"}}},
			{ID: "1", Create: &Create{LfVersion: "2.1", ContractID: "00ef", PackageName: "p", TemplateID: *id, Argument: arg, Signatories: []string{"a"}, Stakeholders: []string{"a"}}},
		}, Seeds: []NodeSeed{{NodeID: 0, Seed: bytes.Repeat([]byte{7}, 32)}}},
		Metadata: m,
	}
}

// TestRoundTrip: what Marshal writes, Unmarshal reads back the same, and
// the hash covers every part: changing one byte of the encoding changes
// the hash or fails to decode.
func TestRoundTrip(t *testing.T) {
	p := sample()
	raw := Marshal(p)
	got, err := Unmarshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, p) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, p)
	}
	h, err := Hash(p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range raw {
		tampered := bytes.Clone(raw)
		tampered[i] ^= 0x01
		q, err := Unmarshal(tampered)
		if err != nil {
			continue
		}
		h2, err := Hash(q)
		if err == nil && bytes.Equal(h, h2) && !reflect.DeepEqual(q, p) {
			t.Errorf("flipping byte %d changes the transaction but not its hash", i)
		}
	}
}

func TestUnmarshalRefuses(t *testing.T) {
	for name, b := range map[string][]byte{
		"empty":        {},
		"garbage":      []byte("not a protobuf at all"),
		"truncated":    Marshal(sample())[:40],
		"no metadata":  {0x0a, 0x00},
		"wrong wire":   {0x08, 0x01, 0x12, 0x00},
		"deep nesting": deep(MaxDepth + 2),
	} {
		if _, err := Unmarshal(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
	}
}

// deep is a transaction whose single node's argument nests optionals n deep.
func deep(n int) []byte {
	v := Value{Kind: KindUnit}
	for range n {
		e := v
		v = Value{Kind: KindOptional, Elem: &e}
	}
	p := sample()
	p.Transaction.Nodes[1].Create.Argument = v
	return Marshal(p)
}

func TestHashRefuses(t *testing.T) {
	p := sample()
	p.Transaction.Seeds = nil
	if _, err := Hash(p); !errors.Is(err, ErrUnhashable) {
		t.Errorf("an exercise without its seed: %v", err)
	}
	p = sample()
	p.Transaction.Roots = []string{"9"}
	if _, err := Hash(p); !errors.Is(err, ErrUnhashable) {
		t.Errorf("a root that names no node: %v", err)
	}
	p = sample()
	p.Transaction.Nodes[1].Create.ContractID = "zz"
	if _, err := Hash(p); !errors.Is(err, ErrUnhashable) {
		t.Errorf("a contract id that is not hex: %v", err)
	}
}

// FuzzUnmarshal: any bytes either fail to decode or decode to a
// transaction that hashes (or fails to) and encodes again without a
// panic, and what decodes re-encodes to something that decodes the same.
func FuzzUnmarshal(f *testing.F) {
	f.Add(Marshal(sample()))
	f.Add([]byte{0x0a, 0x00, 0x12, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Unmarshal(b)
		if err != nil {
			return
		}
		Hash(p)
		q, err := Unmarshal(Marshal(p))
		if err != nil {
			t.Fatalf("re-encoding does not decode: %v", err)
		}
		if h1, err1 := Hash(p); err1 == nil {
			if h2, _ := Hash(q); !bytes.Equal(h1, h2) {
				t.Fatalf("re-encoding changes the hash")
			}
		}
	})
}
