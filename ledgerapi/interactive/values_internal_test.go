package interactive

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccwallet/ccwallet/ledger/preparedtx"
	"github.com/google/go-cmp/cmp"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/daml_values.json")

// damlValueCases cover every kind damlValue gives: records typed by their
// field, TextMaps, variants (AnyValue and other), lists, contract and
// party ids, timestamps, decimals, text, booleans, numbers, nulls, and
// the edge cases of a variant's shape.
var damlValueCases = []string{
	`{"expectedAdmin":"DSO::1220aa","transfer":{"sender":"alice::1220bb","receiver":"bob::1220cc","amount":"25.0000000000",
	  "instrumentId":{"admin":"DSO::1220aa","id":"Amulet"},"requestedAt":"2026-11-29T10:00:00.123456789Z",
	  "executeBefore":"2026-11-29T11:00:00Z","inputHoldingCids":["00` + "aa11" + `ca1112201234"],
	  "meta":{"values":{"splice.lfdecentralizedtrust.org/reason":"lunch"}}},
	  "extraArgs":{"context":{"values":{"amulet-rules":{"tag":"AV_ContractId","value":"00bb22ca111220abcd"},
	  "featured":{"tag":"AV_Bool","value":true},"n":{"tag":"AV_Int","value":7}}},"meta":{"values":{}}}}`,
	`{"tag":"Left","value":{"a":[1,2.5,-3,"x",null,false]}}`,
	`{"tag":null,"value":null}`,
	`{"tag":5,"value":"x"}`,
	`{"tag":"A","value":"v","extra":1}`,
	`[]`,
	`null`,
	` "  spaced" `,
	`{"allocation":{"settlement":{"settlementRef":{"id":"r"}},"transferLeg":{"amount":"1.5"}},"transferLegs":{"leg0":{"x":"y"}},
	  "allocationsWithContext":{"k":[{"v":"\u00e9\"q"}]}}`,
	`1e3`,
	`"2026-02-30T00:00:00Z"`,
}

// TestDamlValueGolden holds damlValue to the values it gave before it
// decoded its input in one pass (testdata/daml_values.json; -update
// rewrites it).
func TestDamlValueGolden(t *testing.T) {
	id := identifier("#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory_Transfer")
	got := make([]preparedtx.Value, len(damlValueCases))
	for i, c := range damlValueCases {
		v, err := damlValue(json.RawMessage(c), "", &id, 0)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		got[i] = v
	}
	path := filepath.Join("testdata", "daml_values.json")
	if *updateGolden {
		b, _ := json.MarshalIndent(got, "", " ")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want []preparedtx.Value
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("damlValue changed (-before +now):\n%s", diff)
	}
}

// TestDamlValueDepth: a value nested deeper than the prepared
// transaction allows is refused.
func TestDamlValueDepth(t *testing.T) {
	deep := ""
	for range preparedtx.MaxDepth + 2 {
		deep += "["
	}
	for range preparedtx.MaxDepth + 2 {
		deep += "]"
	}
	if _, err := damlValue(json.RawMessage(deep), "arg", nil, 0); err == nil {
		t.Fatal("a value nested too deep was accepted")
	}
}

// BenchmarkDamlValueTransfer: a TransferFactory_Transfer argument, as
// every wallet SDK transfer's preparation converts it.
func BenchmarkDamlValueTransfer(b *testing.B) {
	id := identifier("#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory_Transfer")
	raw := json.RawMessage(damlValueCases[0])
	b.ReportAllocs()
	for b.Loop() {
		if _, err := damlValue(raw, "", &id, 0); err != nil {
			b.Fatal(err)
		}
	}
}
