package main

import (
	"encoding/base64"
	"reflect"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
)

// TestBodiesAsMaps holds the appended request bodies to the maps they
// replaced: the same JSON values, so the wallet's work is unchanged.
func TestBodiesAsMaps(t *testing.T) {
	now := time.Date(2026, 12, 2, 6, 30, 0, 123456789, time.UTC)
	dso, sender, receiver := "DSO::1220ab", `al"ice::1220cd`, "bob::1220ef"
	empty := map[string]any{"values": map[string]any{}}
	transfer := map[string]any{
		"sender": sender, "receiver": receiver, "amount": "0.01",
		"instrumentId":     map[string]any{"admin": dso, "id": "Amulet"},
		"requestedAt":      now.Add(-time.Second).Format(time.RFC3339Nano),
		"executeBefore":    now.Add(time.Hour).Format(time.RFC3339Nano),
		"inputHoldingCids": []any{}, "meta": empty,
	}
	tr := appendTransfer(nil, dso, sender, receiver, "0.01", now)
	ctx := []byte(`{"values":{"amulet-rules":{"tag":"AV_ContractId","value":"00ab"}}}`)
	disclosed := []byte(`[{"contractId":"00ab","templateId":"#t","createdEventBlob":"AAA=","synchronizerId":"s"}]`)
	x := External{User: "u1", Party: "ext::1220aa", Sync: "global::1220bb", fp: "1220cc"}
	sig := []byte{1, 2, 3, 4}
	cmd := map[string]any{"ExerciseCommand": map[string]any{"templateId": factoryInterface, "contractId": "00f1", "choice": "TransferFactory_Transfer",
		"choiceArgument": map[string]any{"expectedAdmin": dso, "transfer": transfer,
			"extraArgs": map[string]any{"context": raw(t, ctx), "meta": empty}}}}
	cmdJSON := transferCommand(dso, "00f1", tr, ctx)
	for _, c := range []struct {
		name string
		got  []byte
		want any
	}{
		{"transfer", tr, transfer},
		{"factory", factoryBody(dso, tr), map[string]any{"choiceArguments": map[string]any{"expectedAdmin": dso, "transfer": transfer,
			"extraArgs": map[string]any{"context": empty, "meta": empty}}, "excludeDebugFields": true}},
		{"command", cmdJSON, cmd},
		{"submit", submitBody(cmdJSON, "lg-1", sender, disclosed), map[string]any{"commands": []any{cmd}, "commandId": "lg-1",
			"actAs": []any{sender}, "disclosedContracts": raw(t, disclosed)}},
		{"prepare", prepareBody(x, "lg-2", cmdJSON, disclosed), map[string]any{
			"userId": x.User, "commandId": "lg-2", "commands": []any{cmd}, "actAs": []any{x.Party}, "readAs": []any{},
			"disclosedContracts": raw(t, disclosed), "synchronizerId": x.Sync, "packageIdSelectionPreference": []any{}, "verboseHashing": false}},
		{"execute", executeBody(x, "lg-2", "CgQ=", sig), map[string]any{
			"preparedTransaction": "CgQ=", "hashingSchemeVersion": "HASHING_SCHEME_VERSION_V2",
			"partySignatures": map[string]any{"signatures": []any{map[string]any{"party": x.Party, "signatures": []any{map[string]any{
				"format": "SIGNATURE_FORMAT_CONCAT", "signature": base64.StdEncoding.EncodeToString(sig), "signedBy": "1220cc",
				"signingAlgorithmSpec": "SIGNING_ALGORITHM_SPEC_ED25519"}}}}},
			"deduplicationPeriod": map[string]any{"Empty": map[string]any{}}, "submissionId": "lg-2", "userId": x.User}},
		{"completions", completionsBody(x, 42), map[string]any{"userId": x.User, "parties": []any{x.Party}, "beginExclusive": 42.0}},
	} {
		var got any
		if err := jsonv2.Unmarshal(c.got, &got); err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, c.got)
		}
		// The wanted maps through JSON too, so numbers and lists compare alike.
		wb, err := jsonv2.Marshal(c.want)
		if err != nil {
			t.Fatal(err)
		}
		var want any
		if err := jsonv2.Unmarshal(wb, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", c.name, c.got, wb)
		}
	}
}

// raw is b decoded, to stand in a map.
func raw(t *testing.T, b []byte) any {
	var v any
	if err := jsonv2.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}
