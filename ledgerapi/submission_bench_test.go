package ledgerapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/store"
)

// transferSubmission is a submit-and-wait body of TransferFactory_Transfer
// from alice to bob, who has a transfer preapproval, with the choice
// context and disclosed contracts the registry handed out, as an app (and
// bench/loadgen) sends it; and the submitting user and parties.
func transferSubmission(b *testing.B) (e *env, body []byte, actAs []coin.PartyID) {
	e = newEnv(b, 1) // SQLite: the body is the same on both engines
	alice, bob := e.user("alice", "100"), e.user("bob", "")
	if _, _, err := e.l.Preapprovals().Create(context.Background(), bob); err != nil {
		b.Fatal(err)
	}
	cmd, disclose := e.transferCommand(alice, bob, "1.5", []string{})
	body, err := json.Marshal(map[string]any{"commands": []any{cmd}, "commandId": "bench-1", "actAs": []coin.PartyID{alice}, "disclosedContracts": disclose})
	if err != nil {
		b.Fatal(err)
	}
	return e, body, []coin.PartyID{alice}
}

// BenchmarkDecodeTransferSubmission is the wallet's work on a Ledger API
// transfer's submission before the ledger runs it: decoding the body, the
// ExerciseCommand and its choice argument, checking the disclosed
// contracts' blobs (verified once, then known), and the exercise stored
// with the completion.
func BenchmarkDecodeTransferSubmission(b *testing.B) {
	e, body, actAs := transferSubmission(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, "/v2/commands/submit-and-wait", bytes.NewReader(body))
		r.Header.Set("Content-Type", jsonType)
		if err := e.api.DecodeTransferSubmission(r, "alice", actAs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkShapeTransferExercise is the exercise a direct Ledger API
// transfer stores with its completion, the facts its result is shaped
// from (apiread.ExerciseFacts) encoded as the ledger stores it ("store"),
// and what reading it back costs: its Daml result and the receiver's
// nested TransferPreapproval_Send shaped (apiread.ParseExercise, "read").
func BenchmarkShapeTransferExercise(b *testing.B) {
	_, body, actAs := transferSubmission(b)
	var sub struct {
		Commands []struct {
			ExerciseCommand struct {
				ContractID     coin.ContractID `json:"contractId"`
				Choice         string          `json:"choice"`
				ChoiceArgument json.RawMessage `json:"choiceArgument"`
			}
		} `json:"commands"`
	}
	if err := json.Unmarshal(body, &sub); err != nil {
		b.Fatal(err)
	}
	var arg struct {
		Transfer struct {
			Receiver coin.PartyID `json:"receiver"`
		} `json:"transfer"`
	}
	ex := sub.Commands[0].ExerciseCommand
	if err := json.Unmarshal(ex.ChoiceArgument, &arg); err != nil {
		b.Fatal(err)
	}
	sender, receiver := actAs[0], arg.Transfer.Receiver
	price := coin.MustParse("0.005")
	details := func(fees, holdingFees string) string {
		return `{"holding_fees":"` + holdingFees + `","fees":"` + fees + `","amulet_price":"0.0050000000","tracking_id":"0f3c1a"}`
	}
	w := ledger.Written{
		Round: &store.Round{Number: 12, ContractID: "00round", Price: price},
		Holdings: []store.Holding{
			{ContractID: "00receiverholding", Owner: receiver, Amount: coin.MustParse("1.5"), CreatedRound: 12},
			{ContractID: "00senderchange", Owner: sender, Amount: coin.MustParse("98.4"), CreatedRound: 12},
		},
		History: []store.HistoryEntry{
			{Party: sender, Kind: "transfer", Counterparty: string(receiver), Amount: coin.MustParse("1.5"), Fees: coin.MustParse("0.1"), Details: details("0.1000000000", "0.0000000000")},
			{Party: receiver, Kind: "transfer", Counterparty: string(sender), Amount: coin.MustParse("1.5"), Details: details("0.0000000000", "0.0000000000")},
		},
	}
	template := apiread.Implementers(apiread.InterfaceTransferFactory)[0]
	buf := make([]byte, 0, 8<<10)
	store := func() []byte {
		e := commands.Exercise{ContractID: ex.ContractID, TemplateID: template, InterfaceID: apiread.InterfaceTransferFactory, Choice: ex.Choice,
			ChoiceArgument: ex.ChoiceArgument, ActingParties: actAs, Consuming: true}
		apiread.ExerciseFacts(w, &e)
		out, ok := e.AppendJSON(buf[:0])
		if !ok {
			b.Fatal("the exercise does not append as JSON")
		}
		return out
	}
	b.Run("store", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			store()
		}
	})
	stored := string(store())
	b.Run("read", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if e := apiread.ParseExercise(stored); e == nil || e.Nested == nil {
				b.Fatal("no nested TransferPreapproval_Send")
			}
		}
	})
}
