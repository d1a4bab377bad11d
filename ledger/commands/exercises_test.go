package commands

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
)

// TestExerciseAppendJSON: AppendJSON writes what json.Marshal writes, byte
// for byte when the raw parts are compact and no string needs escaping,
// and the same JSON value otherwise; a raw part that is not JSON makes it
// refuse, leaving dst as it was.
func TestExerciseAppendJSON(t *testing.T) {
	nested := &Exercise{ContractID: "00ab", TemplateID: "#pkg:M:T", Choice: "Send", ChoiceArgument: json.RawMessage(`{"amount":"1.0"}`),
		ActingParties: []coin.PartyID{"a::1220"}, ExerciseResult: json.RawMessage(`{"meta":null}`), Observers: []coin.PartyID{"b::1220"}}
	cases := map[string]struct {
		e     Exercise
		exact bool
	}{
		"plain": {Exercise{ContractID: "00cd", TemplateID: "#pkg:M:T", InterfaceID: "#i:M:I", Choice: "TransferFactory_Transfer",
			ChoiceArgument: json.RawMessage(`{"transfer":{"sender":"a::1220","amount":"0.01"},"list":[1,2,{"x":null}]}`),
			ActingParties:  []coin.PartyID{"a::1220", "c::1220"}, Consuming: true, ExerciseResult: json.RawMessage(`{"output":{"tag":"X","value":[]}}`),
			Observers: []coin.PartyID{"b::1220"}, Nested: nested}, true},
		"empty parts": {Exercise{ContractID: "00cd", Choice: "C"}, true},
		"empty parties": {Exercise{ContractID: "00cd", Choice: "C", ActingParties: []coin.PartyID{}, Observers: []coin.PartyID{},
			ChoiceArgument: json.RawMessage(`{}`), ExerciseResult: json.RawMessage(`{}`)}, true},
		"facts": {Exercise{ContractID: "00cd", Choice: "C", Facts: &Facts{
			Round:   &RoundFact{Number: 12, Price: coin.MustParse("0.005")},
			Created: []CreatedFact{{ContractID: "00e1", TemplateID: "#pkg:M:P", Payload: `{"receiver":"b::1220","memo":"<\"é\">"}`}, {ContractID: "00e2", TemplateID: "#pkg:M:I"}},
			Holdings: []HoldingFact{{ContractID: "00h1", Owner: "b::1220", Amount: coin.MustParse("1.5")},
				{ContractID: "00h2", Owner: "a::1220", Amount: coin.MustParse("3"), LockHolder: "b::1220"}},
			History: []HistoryFact{{Party: "a::1220", Counterparty: "b::1220", Fees: coin.MustParse("0.1"), HoldingFees: coin.MustParse("0.0012")},
				{Party: "b::1220"}},
		}}, true},
		"facts without a round": {Exercise{ContractID: "00cd", Choice: "C", Facts: &Facts{
			History: []HistoryFact{{Party: "a::1220", Fees: coin.MustParse("0.1")}}}}, true},
		"facts of holdings alone": {Exercise{ContractID: "00cd", Choice: "C", Facts: &Facts{
			Holdings: []HoldingFact{{ContractID: "00h1", Owner: "b::1220", Amount: coin.MustParse("1.5")}}}}, true},
		"no facts": {Exercise{ContractID: "00cd", Choice: "C", Facts: &Facts{}}, true},
		"escapes and spaces": {Exercise{ContractID: "00cd", TemplateID: "t\"<&>\u2028é\x01", Choice: "C\\",
			ChoiceArgument: json.RawMessage(" {\"memo\" : \"<b>&amp;\u2028\" ,\n \"n\": 1 } "), ActingParties: []coin.PartyID{"x<y::1"},
			ExerciseResult: json.RawMessage(`[ "é" ]`)}, false},
	}
	for name, c := range cases {
		want, err := json.Marshal(&c.e)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := c.e.AppendJSON([]byte("prefix"))
		if !ok || !bytes.HasPrefix(got, []byte("prefix")) {
			t.Fatalf("%s: ok %v, %q", name, ok, got)
		}
		got = got[len("prefix"):]
		if c.exact && !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%s: %v in %s", name, err, got)
		}
		_ = json.Unmarshal(want, &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: another value:\n got %s\nwant %s", name, got, want)
		}
	}
	bad := Exercise{ContractID: "00cd", Choice: "C", ChoiceArgument: json.RawMessage(`{"a":`), Nested: nested}
	if got, ok := bad.AppendJSON([]byte("prefix")); ok || string(got) != "prefix" {
		t.Errorf("a raw part that is not JSON: ok %v, %q", ok, got)
	}
	bad = Exercise{ContractID: "00cd", Choice: "C", Nested: &Exercise{ExerciseResult: json.RawMessage(`nope`)}}
	if _, ok := bad.AppendJSON(nil); ok {
		t.Error("a nested raw part that is not JSON: ok")
	}
}
