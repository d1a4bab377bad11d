package ledger

import (
	"errors"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/fault"
)

func TestHoldingFeeAndDust(t *testing.T) {
	m := coin.MustParse
	tests := []struct {
		name           string
		initial, rate  string
		created, at    coin.Round
		fee, effective string
		dust           bool
	}{
		{"same round", "10", "0.0038051800", 5, 5, "0", "10", false},
		{"earlier round", "10", "0.0038051800", 5, 3, "0", "10", false},
		{"one round", "10", "0.0038051800", 5, 6, "0.0038051800", "9.9961948200", false},
		{"a year of rounds", "1000", "0.0038051800", 0, 52560, "200.0002608000", "799.9997392000", false},
		{"tenth digit", "0.0000000003", "0.0000000001", 0, 2, "0.0000000002", "0.0000000001", false},
		{"fee equals amount", "0.0000000003", "0.0000000001", 0, 3, "0.0000000003", "0", false},
		{"fee exceeds amount", "0.0000000003", "0.0000000001", 0, 4, "0.0000000003", "0", true},
		{"zero rate never dust", "1", "0", 0, 1 << 40, "0", "1", false},
		{"dust just after", "1", "0.3", 10, 14, "1", "0", true},
		{"not dust at boundary", "1.2", "0.3", 10, 14, "1.2", "0", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fee := HoldingFee(m(tt.initial), m(tt.rate), tt.created, tt.at)
			eff := EffectiveAmount(m(tt.initial), m(tt.rate), tt.created, tt.at)
			if !fee.Equal(m(tt.fee)) || !eff.Equal(m(tt.effective)) {
				t.Errorf("fee, effective = %s, %s; want %s, %s", fee, eff, tt.fee, tt.effective)
			}
			if got := IsDust(m(tt.initial), m(tt.rate), tt.created, tt.at); got != tt.dust {
				t.Errorf("IsDust = %v, want %v", got, tt.dust)
			}
			if exp, ok := ExpiresAt(m(tt.initial), m(tt.rate), tt.created); ok {
				if IsDust(m(tt.initial), m(tt.rate), tt.created, exp-1) || !IsDust(m(tt.initial), m(tt.rate), tt.created, exp) {
					t.Errorf("ExpiresAt = %d is not the first dust round", exp)
				}
			}
		})
	}
}

// TestExpiresAtIsFirstDustRound checks ExpiresAt's exact integer
// division against IsDust over amounts that are, and are just off,
// whole multiples of the rate.
func TestExpiresAtIsFirstDustRound(t *testing.T) {
	tick := coin.MustParse("0.0000000001")
	for _, rate := range []string{"0.0038051800", "0.0000000001", "0.3", "1", "7.1234567891"} {
		r := coin.MustParse(rate)
		for i := int64(0); i < 2000; i += 7 {
			for _, initial := range []coin.Amount{r.MulInt(i), r.MulInt(i).Add(tick), r.MulInt(i).Sub(tick), coin.MustParse("12.3456789012").MulInt(i)} {
				if initial.IsNegative() {
					continue
				}
				exp, ok := ExpiresAt(initial, r, 5)
				if !ok || IsDust(initial, r, 5, exp-1) || !IsDust(initial, r, 5, exp) {
					t.Fatalf("ExpiresAt(%s, %s) = %d, %v: not the first dust round", initial, r, exp, ok)
				}
			}
		}
	}
}

func TestFeesAndTraffic(t *testing.T) {
	r := DefaultRules()
	price := r.InitialPriceUSD
	if got := r.HoldingRate(price); !got.Equal(coin.MustParse("0.00380518")) {
		t.Errorf("HoldingRate = %s", got)
	}
	// 200000 bytes at 16.67 $/MB = 3.334 $ = 666.8 CC at 0.005 $/CC.
	if got := r.TrafficCost(200_000, price); !got.Equal(coin.MustParse("666.8")) {
		t.Errorf("TrafficCost = %s", got)
	}
	if got := r.OutputFee(coin.MustParse("100"), price, false); !got.IsZero() {
		t.Errorf("default OutputFee = %s, want 0 (fees removed on live networks)", got)
	}
	r.CreateFeeUSD = coin.MustParse("0.03")
	r.TransferFeeRate = coin.MustParse("0.01")
	// 0.03 $ + 1% of 100 CC * 0.005 $/CC = 0.035 $ = 7 CC.
	if got := r.OutputFee(coin.MustParse("100"), price, false); !got.Equal(coin.MustParse("7")) {
		t.Errorf("OutputFee = %s, want 7", got)
	}
	if got := r.OutputFee(coin.MustParse("100"), price, true); !got.IsZero() {
		t.Errorf("self-transfer OutputFee = %s, want 0", got)
	}
	// Either fee alone (OutputFee skips the other's arithmetic).
	r.TransferFeeRate = coin.Zero
	if got := r.OutputFee(coin.MustParse("100"), price, false); !got.Equal(coin.MustParse("6")) {
		t.Errorf("OutputFee without a transfer fee rate = %s, want 6", got)
	}
	r.CreateFeeUSD, r.TransferFeeRate = coin.Zero, coin.MustParse("0.01")
	if got := r.OutputFee(coin.MustParse("100"), price, false); !got.Equal(coin.MustParse("1")) {
		t.Errorf("OutputFee without a create fee = %s, want 1", got)
	}
	if r.TrafficBytes(10) <= r.TrafficBytes(1) {
		t.Error("more inputs must cost more traffic")
	}
}

func TestSelectInputs(t *testing.T) {
	c := func(id, amt string) Candidate {
		return Candidate{ID: coin.ContractID(id), Effective: coin.MustParse(amt)}
	}
	many := func(n int, amt string) []Candidate {
		var cs []Candidate
		for i := range n {
			cs = append(cs, c(string(rune('a'+i%26))+string(rune('a'+i/26)), amt))
		}
		return cs
	}
	tests := []struct {
		name    string
		cands   []Candidate
		target  string
		max     int
		want    []string
		sum     string
		wantErr bool
	}{
		{"exact single", []Candidate{c("a", "5"), c("b", "3")}, "5", 100, []string{"a"}, "5", false},
		{"largest first", []Candidate{c("a", "1"), c("b", "7"), c("c", "3")}, "8", 100, []string{"b", "c"}, "10", false},
		{"ties by id", []Candidate{c("b", "2"), c("a", "2")}, "1", 100, []string{"a"}, "2", false},
		{"all needed", []Candidate{c("a", "1"), c("b", "2"), c("c", "3")}, "6", 100, []string{"c", "b", "a"}, "6", false},
		{"worthless skipped", []Candidate{c("a", "0"), c("b", "4")}, "4", 100, []string{"b"}, "4", false},
		{"insufficient", []Candidate{c("a", "1"), c("b", "2")}, "3.0000000001", 100, nil, "", true},
		{"empty", nil, "1", 100, nil, "", true},
		{"100 input limit ok", many(100, "1"), "100", 100, nil, "100", false},
		{"100 input limit exceeded", many(101, "1"), "101", 100, nil, "", true},
		{"limit but large exists", append(many(150, "1"), c("zz", "200")), "150", 100, []string{"zz"}, "200", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, sum, err := SelectInputs(tt.cands, coin.MustParse(tt.target), tt.max)
			if tt.wantErr {
				if !errors.Is(err, fault.ErrInsufficientFunds) {
					t.Fatalf("err = %v, want fault.ErrInsufficientFunds", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !sum.Equal(coin.MustParse(tt.sum)) {
				t.Errorf("sum = %s, want %s", sum, tt.sum)
			}
			if tt.want != nil {
				var ids []string
				for _, g := range got {
					ids = append(ids, string(g.ID))
				}
				if len(ids) != len(tt.want) {
					t.Fatalf("picked %v, want %v", ids, tt.want)
				}
				for i := range ids {
					if ids[i] != tt.want[i] {
						t.Fatalf("picked %v, want %v", ids, tt.want)
					}
				}
			}
			if len(got) > tt.max {
				t.Errorf("picked %d inputs, max %d", len(got), tt.max)
			}
		})
	}
}
