package apiread_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/store"
)

// TestShapeExerciseBytes pins the exercise the Ledger API reads from a
// command's completion byte for byte: its facts recorded
// (ExerciseFacts), encoded as the core stores them, read back and shaped
// (ParseExercise), for the token standard's transfer choices and the
// coin's choices whose results share their shapes: what the Ledger API's
// transactions show. The pins were made when the result was shaped as
// the change was written and stored whole, so they also hold the facts
// to what they stand for.
func TestShapeExerciseBytes(t *testing.T) {
	const (
		alice = coin.PartyID("alice::1220aa")
		bob   = coin.PartyID("bob::1220bb")
	)
	details := func(fees, holdingFees string) string {
		return `{"holding_fees":"` + holdingFees + `","fees":"` + fees + `","amulet_price":"0.0050000000"}`
	}
	round := &store.Round{Number: 12, ContractID: "00round", Price: coin.MustParse("0.005")}
	direct := ledger.Written{Round: round,
		Holdings: []store.Holding{
			{ContractID: "00bobs", Owner: bob, Amount: coin.MustParse("1.5")},
			{ContractID: "00change", Owner: alice, Amount: coin.MustParse("98.4")},
			{ContractID: "00locked", Owner: alice, Amount: coin.MustParse("3"), LockHolder: string(bob)},
		},
		History: []store.HistoryEntry{
			{Party: alice, Details: details("0.1000000000", "0.0012000000")},
			{Party: bob, Details: details("0.0000000000", "0.0000000000")},
		},
	}
	noFees := direct
	noFees.History = []store.HistoryEntry{{Party: alice, Details: details("0.0000000000", "0.0000000000")}}
	pending := ledger.Written{Round: round,
		Created:  []store.Contract{{ContractID: "00instruction", TemplateID: ledger.TemplateTransferInstruction}},
		Holdings: []store.Holding{{ContractID: "00change", Owner: alice, Amount: coin.MustParse("70")}},
		History:  []store.HistoryEntry{{Party: alice, Details: details("0.2000000000", "0.0000000000")}},
	}
	self := ledger.Written{Round: round,
		Holdings: []store.Holding{{ContractID: "00merged", Owner: alice, Amount: coin.MustParse("100")}},
		History:  []store.HistoryEntry{{Party: alice, Details: details("0.0000000000", "0.0300000000")}},
	}
	renew := direct
	renew.Created = []store.Contract{{ContractID: "00renewed", TemplateID: ledger.TemplateTransferPreapproval, Payload: `{"receiver":"` + string(bob) + `","provider":"` + string(alice) + `"}`}}
	context := `"extraArgs": {"context": {"values": {"amulet-rules": {"tag": "AV_ContractId", "value": "00rules"},
		"open-round": {"tag": "AV_ContractId", "value": "00open"}, "transfer-preapproval": {"tag": "AV_ContractId", "value": "00pre"},
		"featured-app-right": {"tag": "AV_ContractId", "value": "00right"}}}, "meta": {"values": {}}}`
	transfer := func(sender, receiver coin.PartyID, meta, inputs string) string {
		return `{"expectedAdmin": "DSO::1220", ` + context + `, "transfer": {"sender": "` + string(sender) + `", "receiver": "` + string(receiver) +
			`", "amount": "1.5", "instrumentId": {"admin": "DSO::1220", "id": "Amulet"}, "requestedAt": "2026-11-01T11:59:59Z",
			"executeBefore": "2026-11-01T13:00:00Z", "inputHoldingCids": ` + inputs + `, "meta": {"values": ` + meta + `}}}`
	}
	cases := []struct {
		name   string
		w      ledger.Written
		choice string
		arg    string
		actors []coin.PartyID
	}{
		{"direct", direct, "TransferFactory_Transfer", transfer(alice, bob, `{"splice.lfdecentralizedtrust.org/reason": "lunch & <tea>\u2028"}`, `["00in1", "00in2"]`), []coin.PartyID{alice}},
		{"direct no memo no fees", noFees, "TransferFactory_Transfer", transfer(alice, bob, `{}`, `[]`), []coin.PartyID{alice}},
		{"direct null memo", noFees, "TransferFactory_Transfer", transfer(alice, bob, `{"splice.lfdecentralizedtrust.org/reason": null}`, `null`), []coin.PartyID{alice}},
		{"pending", pending, "TransferFactory_Transfer", transfer(alice, bob, `{"splice.lfdecentralizedtrust.org/reason": "rent"}`, `[]`), []coin.PartyID{alice}},
		{"self", self, "TransferFactory_Transfer", transfer(alice, alice, `{}`, `["00a", "00b"]`), []coin.PartyID{alice}},
		{"no preapproval", direct, "TransferFactory_Transfer", `{"expectedAdmin": "DSO::1220", "extraArgs": {"context": {"values": {"amulet-rules": {"tag": "AV_ContractId", "value": "00rules"}}}}, "transfer": {"sender": "` + string(alice) + `", "receiver": "` + string(bob) + `", "amount": "1.5"}}`, []coin.PartyID{alice}},
		{"preapproval context not a contract id", direct, "TransferFactory_Transfer", `{"extraArgs": {"context": {"values": {"transfer-preapproval": {"tag": "AV_Bool", "value": true}}}}, "transfer": {"sender": "` + string(alice) + `", "receiver": "` + string(bob) + `", "amount": "1.5"}}`, []coin.PartyID{alice}},
		{"malformed amount", direct, "TransferFactory_Transfer", `{"extraArgs": {"context": {"values": {"transfer-preapproval": {"tag": "AV_ContractId", "value": "00pre"}}}}, "transfer": {"sender": "` + string(alice) + `", "receiver": "` + string(bob) + `", "amount": "x"}}`, []coin.PartyID{alice}},
		{"preapproval send", direct, "TransferPreapproval_Send", `{"context": {}, "inputs": [], "amount": "1.5", "sender": "` + string(alice) + `", "description": "for <you>"}`, []coin.PartyID{alice}},
		{"preapproval send no description", direct, "TransferPreapproval_Send", `{"amount": "1.5", "sender": "` + string(alice) + `"}`, []coin.PartyID{alice}},
		{"accept", direct, "TransferInstruction_Accept", `{"extraArgs": {}}`, []coin.PartyID{bob}},
		{"reject", direct, "TransferInstruction_Reject", `{}`, []coin.PartyID{bob}},
		{"withdraw", pending, "TransferInstruction_Withdraw", `{}`, []coin.PartyID{alice}},
		{"traffic", direct, "AmuletRules_BuyMemberTraffic", `{}`, []coin.PartyID{alice}},
		{"renew", renew, "TransferPreapproval_Renew", `{}`, []coin.PartyID{alice}},
	}
	got := map[string]string{}
	for _, c := range cases {
		e := commands.Exercise{ContractID: "00factory", TemplateID: "#t:M:T", InterfaceID: "#i:M:I", Choice: c.choice,
			ChoiceArgument: json.RawMessage(c.arg), ActingParties: c.actors, Consuming: true}
		apiread.ExerciseFacts(c.w, &e)
		stored, ok := e.AppendJSON(nil)
		if !ok {
			t.Fatalf("%s: the exercise does not append as JSON", c.name)
		}
		read := apiread.ParseExercise(string(stored))
		if read == nil || read.Facts != nil {
			t.Fatalf("%s: %s read back as %+v", c.name, stored, read)
		}
		b, err := json.Marshal(read)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got[c.name] = string(b)
	}
	if path := os.Getenv("SHAPE_PIN_WRITE"); path != "" {
		b, _ := json.MarshalIndent(got, "", "  ")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile("testdata/shape_exercise.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]string
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if got[c.name] != want[c.name] {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got[c.name], want[c.name])
		}
		// The pins are what earlier versions stored, shaped: such an
		// exercise reads as it was stored.
		read := apiread.ParseExercise(want[c.name])
		if b, err := json.Marshal(read); err != nil || string(b) != want[c.name] {
			t.Errorf("%s stored shaped reads as\n%s (%v)", c.name, b, err)
		}
	}
}

// TestExerciseFactsMalformedDetails: a history row whose details do not
// decode whole records no fees, as the result shaped from it showed when
// it was shaped as the change was written, not the fees decoded before
// the error.
func TestExerciseFactsMalformedDetails(t *testing.T) {
	w := ledger.Written{History: []store.HistoryEntry{{Party: "alice::1220aa", Counterparty: "bob::1220bb", Details: `{"fees":"0.1000000000","holding_fees":"x"}`}}}
	var e commands.Exercise
	apiread.ExerciseFacts(w, &e)
	if e.Facts == nil || len(e.Facts.History) != 1 {
		t.Fatalf("facts %+v", e.Facts)
	}
	if h := e.Facts.History[0]; !h.Fees.IsZero() || !h.HoldingFees.IsZero() || h.Party != "alice::1220aa" || h.Counterparty != "bob::1220bb" {
		t.Errorf("history fact %+v; want alice's row with no fees", h)
	}
}
