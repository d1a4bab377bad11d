package interactive

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/ledger/preparedtx"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
)

// mapsOf is a value as nested maps and slices, as the command was built
// before appendJSONValue: the oracle its bytes are held to, encoded by
// encoding/json.
func mapsOf(v preparedtx.Value) any {
	switch v.Kind {
	case preparedtx.KindUnit:
		return map[string]any{}
	case preparedtx.KindBool:
		return v.Bool
	case preparedtx.KindInt64:
		return strconv.FormatInt(v.Int, 10)
	case preparedtx.KindDate:
		return time.Unix(v.Int*86400, 0).UTC().Format(time.DateOnly)
	case preparedtx.KindTimestamp:
		return canton.FormatTime(time.UnixMicro(v.Int))
	case preparedtx.KindOptional:
		if v.Elem == nil {
			return nil
		}
		return mapsOf(*v.Elem)
	case preparedtx.KindList:
		out := []any{}
		for _, e := range v.List {
			out = append(out, mapsOf(e))
		}
		return out
	case preparedtx.KindRecord, preparedtx.KindTextMap:
		out := map[string]any{}
		for _, f := range v.Fields {
			out[f.Label] = mapsOf(f.Value)
		}
		return out
	case preparedtx.KindGenMap:
		out := []any{}
		for _, kv := range v.Entries {
			out = append(out, []any{mapsOf(kv[0]), mapsOf(kv[1])})
		}
		return out
	case preparedtx.KindVariant:
		return map[string]any{"tag": v.Str, "value": mapsOf(*v.Elem)}
	}
	return v.Str
}

// oddStrings need encoding/json's escaping: quotes, backslashes, control
// characters, HTML's <, > and &, U+2028, non-ASCII and invalid UTF-8.
var oddStrings = []string{"", "plain", `q"uote`, `back\slash`, "tab\tnl\n\x01", "<script>&amp;</script>", "line\u2028sep", "é€😀", "bad\xffutf8", "DSO::1220aa"}

// randomValue is a value of every kind, depth levels deep at most.
func randomValue(r *rand.Rand, depth int) preparedtx.Value {
	str := func() string { return oddStrings[r.IntN(len(oddStrings))] }
	kinds := []preparedtx.Kind{preparedtx.KindUnit, preparedtx.KindBool, preparedtx.KindInt64, preparedtx.KindDate, preparedtx.KindTimestamp,
		preparedtx.KindNumeric, preparedtx.KindParty, preparedtx.KindText, preparedtx.KindContractID, preparedtx.KindEnum}
	if depth > 0 {
		kinds = append(kinds, preparedtx.KindOptional, preparedtx.KindList, preparedtx.KindRecord, preparedtx.KindTextMap, preparedtx.KindGenMap, preparedtx.KindVariant)
	}
	v := preparedtx.Value{Kind: kinds[r.IntN(len(kinds))]}
	switch v.Kind {
	case preparedtx.KindBool:
		v.Bool = r.IntN(2) == 0
	case preparedtx.KindInt64:
		v.Int = r.Int64() - r.Int64()
	case preparedtx.KindDate:
		v.Int = r.Int64N(200000) - 100000
	case preparedtx.KindTimestamp:
		v.Int = r.Int64N(1<<52) - 1<<51
	case preparedtx.KindNumeric, preparedtx.KindParty, preparedtx.KindText, preparedtx.KindContractID, preparedtx.KindEnum:
		v.Str = str()
	case preparedtx.KindOptional:
		if r.IntN(2) == 0 {
			e := randomValue(r, depth-1)
			v.Elem = &e
		}
	case preparedtx.KindList:
		for range r.IntN(4) {
			v.List = append(v.List, randomValue(r, depth-1))
		}
	case preparedtx.KindRecord, preparedtx.KindTextMap:
		// Labels drawn from few, so some repeat.
		for range r.IntN(6) {
			v.Fields = append(v.Fields, preparedtx.Field{Label: []string{"b", "a", "ab", "<k>", "é", ""}[r.IntN(6)], Value: randomValue(r, depth-1)})
		}
	case preparedtx.KindGenMap:
		for range r.IntN(3) {
			v.Entries = append(v.Entries, [2]preparedtx.Value{randomValue(r, depth-1), randomValue(r, depth-1)})
		}
	case preparedtx.KindVariant:
		v.Str = str()
		e := randomValue(r, depth-1)
		v.Elem = &e
	}
	return v
}

// TestAppendJSONValueAsEncodingJSON holds appendJSONValue to the bytes
// encoding/json writes for the value as nested maps: over the values the
// Daml-JSON cases decode to, and 3,000 random values of every kind with
// strings that need escaping and records with repeated labels.
func TestAppendJSONValueAsEncodingJSON(t *testing.T) {
	id := identifier("#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory_Transfer")
	var values []preparedtx.Value
	for i, c := range damlValueCases {
		v, err := damlValue(json.RawMessage(c), "", &id, 0)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		values = append(values, v)
	}
	r := rand.New(rand.NewPCG(7, 35))
	for range 3000 {
		values = append(values, randomValue(r, 4))
	}
	for i, v := range values {
		want, err := json.Marshal(mapsOf(v))
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendJSONValue(nil, v)
		if err != nil {
			t.Fatalf("value %d: %v", i, err)
		}
		if string(got) != string(want) {
			t.Fatalf("value %d (%+v):\n got %s\nwant %s", i, v, got, want)
		}
	}
}

// TestCommandOfAsEncodingJSON: the command a prepared exercise or create
// turns back into is the object encoding/json wrote for it as a map; a
// root that is neither, or a variant without its value, is an error, not
// a panic.
func TestCommandOfAsEncodingJSON(t *testing.T) {
	ident := preparedtx.Identifier{PackageID: "#splice-amulet", ModuleName: "Splice.Amulet", EntityName: "Amulet<&>"}
	iface := preparedtx.Identifier{PackageID: "#splice-api-token-holding-v1", ModuleName: "Splice.Api.Token.HoldingV1", EntityName: "Holding"}
	r := rand.New(rand.NewPCG(1, 2))
	arg := randomValue(r, 4)
	for _, root := range []preparedtx.Node{
		{ID: "0", Exercise: &preparedtx.Exercise{ContractID: "00ab", TemplateID: ident, ChoiceID: "Choice\"x", ChosenValue: arg}},
		{ID: "0", Exercise: &preparedtx.Exercise{ContractID: "00cd", TemplateID: ident, InterfaceID: &iface, ChoiceID: "Transfer", ChosenValue: arg}},
		{ID: "0", Create: &preparedtx.Create{TemplateID: ident, Argument: arg}},
	} {
		p := &preparedtx.Prepared{}
		p.Transaction.Roots = []string{"0"}
		p.Transaction.Nodes = []preparedtx.Node{root}
		ref := func(id preparedtx.Identifier) string { return id.PackageID + ":" + id.ModuleName + ":" + id.EntityName }
		var want map[string]any
		if c := root.Create; c != nil {
			want = map[string]any{"CreateCommand": map[string]any{"templateId": ref(c.TemplateID), "createArguments": mapsOf(c.Argument)}}
		} else {
			x, target := root.Exercise, root.Exercise.TemplateID
			if x.InterfaceID != nil {
				target = *x.InterfaceID
			}
			want = map[string]any{"ExerciseCommand": map[string]any{"templateId": ref(target), "contractId": x.ContractID, "choice": x.ChoiceID, "choiceArgument": mapsOf(x.ChosenValue)}}
		}
		got, err := commandOf(p)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range want {
			w, _ := json.Marshal(v)
			if string(got[k]) != string(w) || len(got) != 1 {
				t.Fatalf("%s:\n got %s\nwant %s", k, got[k], w)
			}
		}
	}
	p := &preparedtx.Prepared{}
	p.Transaction.Roots = []string{"0"}
	p.Transaction.Nodes = []preparedtx.Node{{ID: "0"}}
	if _, err := commandOf(p); err == nil {
		t.Fatal("a root of neither kind was turned into a command")
	}
	p.Transaction.Nodes = []preparedtx.Node{{ID: "0", Create: &preparedtx.Create{TemplateID: ident, Argument: preparedtx.Value{Kind: preparedtx.KindVariant, Str: "A"}}}}
	if _, err := commandOf(p); err == nil {
		t.Fatal("a variant without its value was turned into a command")
	}
}

// BenchmarkCommandOfTransfer: the command of a prepared
// TransferFactory_Transfer, as every wallet SDK transfer's execution turns
// it back.
func BenchmarkCommandOfTransfer(b *testing.B) {
	id := identifier("#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory_Transfer")
	arg, err := damlValue(json.RawMessage(damlValueCases[0]), "", &id, 0)
	if err != nil {
		b.Fatal(err)
	}
	p := &preparedtx.Prepared{}
	p.Transaction.Roots = []string{"0"}
	p.Transaction.Nodes = []preparedtx.Node{{ID: "0", Exercise: &preparedtx.Exercise{ContractID: "00ab" + fmt.Sprint(1), TemplateID: id, ChoiceID: "TransferFactory_Transfer", ChosenValue: arg}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := commandOf(p); err != nil {
			b.Fatal(err)
		}
	}
}
