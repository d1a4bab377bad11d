package ledger

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
)

// TestPayloadJSONMatchesMarshal: the hand-written encoders write exactly
// the bytes encoding/json writes for the same values, over strings that
// need escaping and amounts on both sides of Amount's fast path.
func TestPayloadJSONMatchesMarshal(t *testing.T) {
	strs := []string{
		"", "alice::1220abc", `quote"back\slash`, "<b>&amp;</b>", "tab\tnew\nline\x01",
		"héllo", "emoji 🙂", "\u2028sep", "0", "12345678901234567890",
	}
	amts := []string{"0", "1", "-1", "1.5", "0.0000000001", "-0.0000000001", "99999999.9999999999", "100000000", "123456789012345678.25", "-98765432109876.5"}
	r := rand.New(rand.NewPCG(1, 2))
	str := func() string { return strs[r.IntN(len(strs))] }
	amt := func() coin.Amount { return coin.MustParse(amts[r.IntN(len(amts))]) }
	check := func(what string, hand []byte, v any) {
		t.Helper()
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if string(hand) != string(want) {
			t.Fatalf("%s:\n hand %s\n json %s", what, hand, want)
		}
	}
	for range 2000 {
		round := coin.Round(r.Int64N(1 << 40))
		am := AmuletPayload{DSO: coin.PartyID(str()), Owner: coin.PartyID(str()), Amount: expiringAmount{
			InitialAmount: amt(), CreatedAt: RoundRefOf(round), RatePerRound: rateRef{Rate: amt()},
		}}
		check("amulet", am.appendJSON(nil), am)

		d := HistoryDetails{HoldingFees: amt(), Fees: amt(), Price: amt()}
		if r.IntN(2) == 0 {
			d.Provider = coin.PartyID(str())
		}
		if r.IntN(2) == 0 {
			d.ContractID = coin.NewContractID()
		}
		if r.IntN(2) == 0 {
			a := amt()
			d.Instructed = &a
		}
		d.TrackingID, d.Notification = str(), str()
		check("history details", d.appendJSON(nil), d)
	}
	if got := string(HistoryDetails{}.appendJSON(nil)); got != `{"holding_fees":"0.0000000000","fees":"0.0000000000","amulet_price":"0.0000000000"}` {
		t.Errorf("empty details = %s", got)
	}
}
