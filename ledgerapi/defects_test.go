package ledgerapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
)

// TestTransferArgumentsChecked (issue 38): through the Ledger API an
// amount must be a canonical decimal, an input holding must be the
// sender's live holding, and a bad create argument is reported at
// commands[0].CreateCommand.createArguments. Before, " 1", "+1", ".5",
// "01" were taken, another party's holding was silently ignored, and a
// create's bad amount was reported at the ExerciseCommand's
// choiceArgument.
func TestTransferArgumentsChecked(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		alice, bob := e.user("alice", "100"), e.user("bob", "50")
		dso := e.l.DSO()
		holdingsOf := func(p coin.PartyID) []string {
			var ids []string
			for _, h := range e.acs(string(p.Hint()), filter(p, interfaceFilter(holdingIface, true, false)), e.ledgerEnd()) {
				ids = append(ids, h.ContractID)
			}
			return ids
		}
		aliceHoldings, bobHoldings := holdingsOf(alice), holdingsOf(bob)
		now := e.clock.Now()
		transfer := func(amount string, inputs []string) map[string]any {
			return map[string]any{
				"sender": alice, "receiver": bob, "amount": amount,
				"instrumentId": map[string]any{"admin": dso, "id": "Amulet"},
				"requestedAt":  now.Add(-time.Second).Format(time.RFC3339Nano), "executeBefore": now.Add(time.Hour).Format(time.RFC3339Nano),
				"inputHoldingCids": inputs, "meta": map[string]any{"values": map[string]string{}},
			}
		}
		var factory struct {
			FactoryID     string        `json:"factoryId"`
			ChoiceContext choiceContext `json:"choiceContext"`
		}
		e.registry("/transfer-factory", map[string]any{"choiceArguments": map[string]any{
			"expectedAdmin": dso, "transfer": transfer("1", aliceHoldings), "extraArgs": emptyExtra(),
		}}, &factory)
		send := func(id, amount string, inputs []string) (int, string) {
			arg := map[string]any{"expectedAdmin": dso, "transfer": transfer(amount, inputs),
				"extraArgs": map[string]any{"context": factory.ChoiceContext.ChoiceContextData, "meta": map[string]any{"values": map[string]any{}}}}
			code, b := e.command("alice", id, alice, exercise(factoryIface, factory.FactoryID, "TransferFactory_Transfer", arg), disclosed(factory.ChoiceContext))
			if len(b) > 400 {
				b = b[:400]
			}
			return code, string(b)
		}
		for i, amount := range []string{" 1", "1 ", "+1", ".5", "01"} {
			if code, b := send("bad-amount-"+string(rune('a'+i)), amount, aliceHoldings); code != http.StatusBadRequest || !strings.Contains(b, "decimal") {
				t.Errorf("amount %q: %d %s, want 400 saying what a decimal is", amount, code, b)
			}
		}
		if code, b := send("bobs-holding", "1", append(aliceHoldings, bobHoldings[0])); code < 400 || !strings.Contains(b, "another party's holding") {
			t.Errorf("inputs naming bob's holding: %d %s, want a refusal", code, b)
		}
		if code, b := send("good", "1", aliceHoldings); code != http.StatusOK {
			t.Errorf("a good transfer: %d %s", code, b)
		}

		create := map[string]any{"CreateCommand": map[string]any{"templateId": paymentRequestTemplate, "createArguments": map[string]any{
			"sender": alice, "provider": bob, "dso": dso, "description": "x",
			"expiresAt":       now.Add(time.Hour).Format(time.RFC3339Nano),
			"receiverAmounts": []any{map[string]any{"receiver": bob, "amount": map[string]any{"amount": "+1", "unit": "AmuletUnit"}}},
		}}}
		if code, b := e.command("bob", "bad-create", bob, create, nil); code != http.StatusBadRequest ||
			!strings.Contains(string(b), "CreateCommand.createArguments") || strings.Contains(string(b), "ExerciseCommand") {
			t.Errorf("a create with a bad amount: %d %s, want 400 at commands[0].CreateCommand.createArguments", code, b)
		}
	})
}
