package coin

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/shopspring/decimal"
)

func TestParseAmount(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" means an error
	}{
		{"0", "0.0000000000"},
		{"12", "12.0000000000"},
		{"-0.5", "-0.5000000000"},
		{"1000.0000000000", "1000.0000000000"},
		{"0.0000000001", "0.0000000001"},
		{" 7.25 ", "7.2500000000"},
		{"9999999999999999999999999999.9999999999", "9999999999999999999999999999.9999999999"},
		{"0.00000000001", ""},
		{"1e5", ""},
		{"1E-3", ""},
		{"abc", ""},
		{"", ""},
		{"-", ""},
		{".", ""},
		{"1.", ""},
		{"--1", ""},
		{"1.2.3", ""},
		{"NaN", ""},
		{"Infinity", ""},
		{"0x10", ""},
		{"1_000", ""},
		{"10000000000000000000000000000", ""},
	}
	for _, tt := range tests {
		got, err := ParseAmount(tt.in)
		if tt.want == "" {
			if err == nil || !errors.Is(err, ErrInvalidAmount) {
				t.Errorf("ParseAmount(%q) = %s, %v; want ErrInvalidAmount", tt.in, got, err)
			}
			continue
		}
		if err != nil || got.String() != tt.want {
			t.Errorf("ParseAmount(%q) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

func TestArithmeticRounding(t *testing.T) {
	tests := []struct {
		name string
		got  Amount
		want string
	}{
		{"add", MustParse("0.1").Add(MustParse("0.2")), "0.3000000000"},
		{"sub", MustParse("1").Sub(MustParse("0.0000000001")), "0.9999999999"},
		{"mulInt", MustParse("0.0038051800").MulInt(52560), "200.0002608000"},
		// 0.00000000005 is a tie at the 10th digit: half-even keeps 0.
		{"mul tie even", MustParse("0.0000000001").Mul(MustParse("0.5")), "0.0000000000"},
		{"mul tie odd", MustParse("0.0000000003").Mul(MustParse("0.5")), "0.0000000002"},
		{"div", MustParse("0.0000190259").Div(MustParse("0.005")), "0.0038051800"},
		{"div thirds", MustParse("1").Div(MustParse("3")), "0.3333333333"},
		{"div two thirds", MustParse("2").Div(MustParse("3")), "0.6666666667"},
		{"div tie", MustParse("0.0000000001").Div(MustParse("2")), "0.0000000000"},
		{"div tie odd", MustParse("0.0000000003").Div(MustParse("2")), "0.0000000002"},
		{"neg", MustParse("5").Neg(), "-5.0000000000"},
	}
	for _, tt := range tests {
		if tt.got.String() != tt.want {
			t.Errorf("%s = %s, want %s", tt.name, tt.got, tt.want)
		}
	}
}

func TestQuo(t *testing.T) {
	tests := []struct {
		a, b string
		want int64
	}{
		{"10", "3", 3},
		{"9", "3", 3},
		{"0", "0.0038051800", 0},
		{"1", "0.0038051800", 262},
		{"0.0000000003", "0.0000000001", 3},
		{"0.0000000002", "0.0000000003", 0},
		{"-7", "2", -3},
	}
	for _, tt := range tests {
		if got := MustParse(tt.a).Quo(MustParse(tt.b)); got != tt.want {
			t.Errorf("%s.Quo(%s) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestAmountJSONAndSQL(t *testing.T) {
	a := MustParse("12.5")
	b, err := json.Marshal(a)
	if err != nil || string(b) != `"12.5000000000"` {
		t.Fatalf("marshal = %s, %v", b, err)
	}
	var back Amount
	if err := json.Unmarshal(b, &back); err != nil || !back.Equal(a) {
		t.Fatalf("unmarshal = %s, %v", back, err)
	}
	for _, bad := range []string{`12.5`, `"1e3"`, `"0.00000000001"`, `null`, `{}`} {
		var x Amount
		if err := json.Unmarshal([]byte(bad), &x); err == nil {
			t.Errorf("unmarshal %s: no error", bad)
		}
	}
	var s Amount
	for _, src := range []any{"3.1400000000", []byte("3.14"), int64(3)} {
		if err := s.Scan(src); err != nil {
			t.Errorf("scan %T: %v", src, err)
		}
	}
	if err := s.Scan(3.14); err == nil {
		t.Error("scan float64: no error; floats must never become amounts")
	}
}

func TestPartyID(t *testing.T) {
	ns := Fingerprint([]byte("0123456789abcdef0123456789abcdef"))
	if len(ns) != 68 || ns[:4] != "1220" {
		t.Fatalf("fingerprint %q", ns)
	}
	good := []string{"alice::" + ns, "a-b_c d:e::" + ns}
	bad := []string{"alice", "alice::1220", "::" + ns, "al::ice::" + ns, "alice::" + ns[:67] + "G", "al!ce::" + ns, "alice::" + "1221" + ns[4:]}
	for _, s := range good {
		if _, err := ParsePartyID(s); err != nil {
			t.Errorf("ParsePartyID(%q): %v", s, err)
		}
	}
	for _, s := range bad {
		if _, err := ParsePartyID(s); !errors.Is(err, ErrInvalidPartyID) {
			t.Errorf("ParsePartyID(%q) = %v, want ErrInvalidPartyID", s, err)
		}
	}
	for in, want := range map[string]string{"alice": "alice", "a_b": "a__b", "bob@x.org": "bob_0040x_002eorg", "": "user"} {
		if got := SanitizeHint(in); got != want {
			t.Errorf("SanitizeHint(%q) = %q, want %q", in, got, want)
		}
		if err := ValidateHint(SanitizeHint(in)); err != nil {
			t.Errorf("SanitizeHint(%q) is not a valid hint: %v", in, err)
		}
	}
}

func TestContractID(t *testing.T) {
	a, b := NewContractID(), NewContractID()
	if a == b {
		t.Fatal("two fresh contract IDs are equal")
	}
	if _, err := ParseContractID(string(a)); err != nil {
		t.Fatalf("ParseContractID(%s): %v", a, err)
	}
	for _, s := range []string{"", "00", string(a)[:137], string(a) + "0", "01" + string(a)[2:], string(a)[:137] + "Z"} {
		if _, err := ParseContractID(s); !errors.Is(err, ErrInvalidContractID) {
			t.Errorf("ParseContractID(%q) = %v", s, err)
		}
	}
}

// TestContractIDsOrdered: fresh IDs sort in creation order, from
// concurrent goroutines too, and differ after the time prefix.
func TestContractIDsOrdered(t *testing.T) {
	const perG, gs = 2000, 4
	ids := make([][]ContractID, gs)
	var wg sync.WaitGroup
	for g := range gs {
		wg.Go(func() {
			for range perG {
				ids[g] = append(ids[g], NewContractID())
			}
		})
	}
	wg.Wait()
	seen := map[ContractID]bool{}
	for _, list := range ids {
		if !slices.IsSorted(list) {
			t.Fatal("one goroutine's contract IDs are not in creation order")
		}
		for _, id := range list {
			if seen[id] {
				t.Fatalf("contract ID %s made twice", id)
			}
			seen[id] = true
		}
	}
	// A later ID sorts after every earlier one.
	last := NewContractID()
	for id := range seen {
		if id >= last {
			t.Fatal("a later contract ID sorts before an earlier one")
		}
	}
	// The random part: the same time prefix never repeats its remainder.
	a, b := NewContractID(), NewContractID()
	if a[18:66] == b[18:66] {
		t.Fatal("the random rest of two contract IDs' discriminators is equal")
	}
}

// TestStringMatchesDecimal holds String's integer fast path to the decimal
// library's StringFixed, on both sides of the int64 boundary, at every
// exponent an amount can have, negative, zero and after arithmetic.
func TestStringMatchesDecimal(t *testing.T) {
	var as []Amount
	for _, s := range []string{"0", "1", "-1", "0.0000000001", "-0.0000000001", "1.5", "-2.25", "12.5000000000",
		"922337203.6854775807", "922337203.6854775808", "99999999.9999999999", "100000000", "-99999999.9999999999",
		"999999999", "1000000000", "123456789012345678901234567.0123456789", "-5000000000000000000", "7.0000000000"} {
		as = append(as, MustParse(s))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		a := MustParse(strconv.FormatInt(rng.Int64N(2e12)-1e12, 10) + "." + strconv.Itoa(rng.IntN(1e6)))
		b := MustParse("0." + strconv.Itoa(1+rng.IntN(1e9)))
		as = append(as, a, a.Neg(), a.Mul(b), a.Div(b), a.Sub(b), a.MulInt(3), FromInt(rng.Int64()), FromInt(-rng.Int64()))
	}
	for _, a := range as {
		if got, want := a.String(), a.dec().StringFixed(Scale); got != want {
			t.Errorf("String() = %s, StringFixed = %s (exponent %d)", got, want, a.dec().Exponent())
		}
		if b, _ := a.MarshalJSON(); string(b) != `"`+a.dec().StringFixed(Scale)+`"` {
			t.Errorf("MarshalJSON = %s", b)
		}
	}
}

func FuzzParseAmount(f *testing.F) {
	for _, s := range []string{"0", "1.5", "-2", "1e3", "0.00000000001", "99999999999999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAmount(s)
		if err != nil {
			return
		}
		if got, want := a.String(), a.dec().StringFixed(Scale); got != want {
			t.Fatalf("String of %q = %s, the decimal library writes %s", s, got, want)
		}
		back, err := ParseAmount(a.String())
		if err != nil || !back.Equal(a) {
			t.Fatalf("round trip of %q: %s -> %v %v", s, a, back, err)
		}
	})
}

func FuzzParsePartyID(f *testing.F) {
	f.Add("alice::" + Fingerprint([]byte("k")))
	f.Add("::")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePartyID(s)
		if err == nil && string(p) != s {
			t.Fatalf("ParsePartyID(%q) changed it to %q", s, p)
		}
	})
}

// TestFits: MaxAmount is the largest amount ParseAmount takes, and a sum
// or conversion one step past it, either sign, no longer fits.
func TestFits(t *testing.T) {
	limit := MustParse(strings.Repeat("9", 28) + "." + strings.Repeat("9", 10))
	if !MaxAmount.Equal(limit) || !limit.Fits() || !limit.Neg().Fits() || !Zero.Fits() {
		t.Fatalf("MaxAmount = %s", MaxAmount)
	}
	step := MustParse("0.0000000001")
	if over := limit.Add(step); over.Fits() || over.Neg().Fits() {
		t.Errorf("%s fits", over)
	}
	// Whole amounts (exponent 0) and finer ones take the same path.
	if e28 := FromInt(1e18).MulInt(1e10); e28.Fits() || !e28.Sub(FromInt(1)).Fits() || !FromInt(1).Fits() {
		t.Errorf("10^28 fits, or 10^28-1 or 1 does not")
	}
	if tiny := MustParse("0.0000000001").Mul(MustParse("0.5")); !tiny.Fits() {
		t.Errorf("%s does not fit", tiny)
	}
	if _, err := ParseAmount(limit.Add(step).String()); err == nil {
		t.Errorf("ParseAmount took %s, which does not fit", limit.Add(step))
	}
}

// TestScanMatchesNewFromString: the scan's fast path reads exactly the
// value decimal.NewFromString reads, and
// leaves to it what it does not read: signs, exponents, stray dots, more
// than 18 digits.
func TestScanMatchesNewFromString(t *testing.T) {
	ins := []string{"0", "-0", "1", "-1", "1.5", "1.50", "007", "0.0000000001", "-2.2500000000",
		"999999999999999999", "9999999999999999999", "-999999999999999999", "99999999.9999999999",
		"922337203.6854775807", "1e5", "+1", ".5", "5.", "1.2.3", "", "-", "abc", "1_0"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		ins = append(ins, strconv.FormatInt(rng.Int64N(2e12)-1e12, 10)+"."+strconv.Itoa(rng.IntN(1e9)))
	}
	for _, s := range ins {
		var got Amount
		gotErr := got.Scan(s)
		want, wantErr := decimal.NewFromString(s)
		if (gotErr != nil) != (wantErr != nil) {
			t.Errorf("Scan(%q) error %v, NewFromString error %v", s, gotErr, wantErr)
			continue
		}
		if gotErr == nil && !got.dec().Equal(want) {
			t.Errorf("Scan(%q) = %s, NewFromString %s", s, got.dec(), want)
		}
	}
}

// TestUnits: Units is the amount times 10^Scale wherever it says it fits,
// says so for every amount an int64 of units holds, and FromUnits undoes it.
func TestUnits(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"1", 1e10, true}, {"-1.5", -15e9, true}, {"0.0000000001", 1, true},
		{"99999999.9999999999", 999999999999999999, true}, {"-99999999.9999999999", -999999999999999999, true},
		{"100000000", 1e18, true}, {"922337203.6854775807", math.MaxInt64, true},
		{"-922337203.6854775807", -math.MaxInt64, true}, {"922337203.6854775808", 0, false},
		{"-922337203.6854775808", 0, false}, {"1000000000", 0, false},
	} {
		a := MustParse(c.in)
		got, ok := a.Units()
		if ok != c.ok || ok && got != c.want {
			t.Errorf("Units(%s) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
		if ok && !FromUnits(got).Equal(a) {
			t.Errorf("FromUnits(%d) = %s, want %s", got, FromUnits(got), a)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		a := MustParse(strconv.FormatInt(rng.Int64N(2e8)-1e8, 10) + "." + strconv.Itoa(rng.IntN(1e9)))
		for _, b := range []Amount{a, a.MulInt(3).Sub(FromInt(7)), a.Mul(MustParse("0.0003"))} {
			u, ok := b.Units()
			if b.Cmp(FromInt(100_000_000)) < 0 && b.Neg().Cmp(FromInt(100_000_000)) < 0 && !ok {
				t.Fatalf("Units(%s) does not fit", b)
			}
			if ok && !FromUnits(u).Equal(b) {
				t.Fatalf("FromUnits(Units(%s)) = %s", b, FromUnits(u))
			}
		}
	}
}

// TestUnmarshalJSONFastPath: amounts read straight from JSON bytes are
// exactly what the full path (json.Unmarshal, then ParseCanonical) gives,
// and everything the full path refuses is still refused with its words.
func TestUnmarshalJSONFastPath(t *testing.T) {
	ins := []string{`"0"`, `"-0"`, `"1"`, `"10"`, `"0.5"`, `"-0.5"`, `"12.5000000000"`, `"0.0000000001"`,
		`"99999999.9999999999"`, `"999999999999999999"`, `"1234567890123456789"`, `"0.00000000001"`,
		`"01"`, `"00.5"`, `"-01"`, `"+1"`, `".5"`, `"5."`, `"1e5"`, `" 1"`, `"1 "`, `"-"`, `""`, `"1.2.3"`,
		`"\u0031"`, `1`, `null`, `"1`, `1"`, `"١"`}
	rng := rand.New(rand.NewPCG(9, 10))
	for range 2000 {
		ins = append(ins, `"`+strconv.FormatInt(rng.Int64N(2e12)-1e12, 10)+"."+strconv.Itoa(rng.IntN(1e10))+`"`)
	}
	for _, in := range ins {
		var got Amount
		gotErr := got.UnmarshalJSON([]byte(in))
		var s string
		var want Amount
		wantErr := json.Unmarshal([]byte(in), &s)
		if wantErr == nil {
			want, wantErr = ParseCanonical(s)
		}
		switch {
		case (gotErr != nil) != (wantErr != nil):
			t.Errorf("UnmarshalJSON(%s): error %v, full path %v", in, gotErr, wantErr)
		case gotErr == nil && (!got.Equal(want) || got.String() != want.String()):
			t.Errorf("UnmarshalJSON(%s) = %s, full path %s", in, got, want)
		}
	}
}

// TestIntegerPathAsDecimal holds every operation on amounts held as
// integers to the same operation in exact rational arithmetic, and to
// the decimal form's, on both sides of the int64 boundary and across it:
// the same value whichever form computes it, and a result that fits held
// as an integer (one value, one form).
func TestIntegerPathAsDecimal(t *testing.T) {
	edges := []string{"0", "0.0000000001", "0.5", "1", "2", "3", "7", "0.0000000003", "0.0038051800", "12.5",
		"922337203.6854775807", "922337203.6854775806", "461168601.8427387903", "461168601.8427387904",
		"3037000499.9760496", "96038388.3490271598", "1000000000", "9999999999999999999999999999.9999999999"}
	var as []Amount
	for _, s := range edges {
		as = append(as, MustParse(s), MustParse(s).Neg())
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for range 300 {
		digits := 1 + rng.IntN(19)
		s := strconv.FormatUint(rng.Uint64()%pow10[min(digits, 18)], 10)
		a := FromUnits(int64(rng.Uint64() >> uint(rng.IntN(64))))
		if rng.IntN(2) == 0 {
			a = MustParse(s + "." + strconv.Itoa(rng.IntN(1e9)))
		}
		if rng.IntN(2) == 0 {
			a = a.Neg()
		}
		as = append(as, a)
	}
	ten := new(big.Int).Exp(big.NewInt(10), big.NewInt(Scale), nil)
	rat := func(a Amount) *big.Rat { r, _ := new(big.Rat).SetString(a.String()); return r }
	// halfEven is x rounded half-to-even at the Scale-th digit.
	halfEven := func(x *big.Rat) *big.Rat {
		n := new(big.Int).Mul(x.Num(), ten)
		q, r := new(big.Int).QuoRem(n, x.Denom(), new(big.Int))
		c := new(big.Int).Abs(r)
		c.Lsh(c, 1)
		if cmp := c.Cmp(x.Denom()); cmp > 0 || cmp == 0 && q.Bit(0) == 1 {
			q.Add(q, big.NewInt(int64(x.Sign())))
		}
		return new(big.Rat).SetFrac(q, ten)
	}
	check := func(op string, a, b Amount, got Amount, want *big.Rat) {
		t.Helper()
		if rat(got).Cmp(want) != 0 {
			t.Fatalf("%s %s %s = %s, want %s", a, op, b, got, want.FloatString(Scale))
		}
		if _, ok := bigUnits(got.dec()); ok != (got.big == nil) {
			t.Fatalf("%s %s %s = %s held as a decimal (%v) though it fits an integer, or the reverse", a, op, b, got, got.big != nil)
		}
	}
	for _, a := range as {
		ra := rat(a)
		check("neg", a, Zero, a.Neg(), new(big.Rat).Neg(ra))
		if got, want := a.Short(), a.dec().String(); got != want {
			t.Fatalf("Short() = %s, the decimal's String %s", got, want)
		}
		for _, n := range []int64{0, 1, -1, 3, 52560, math.MaxInt64, math.MinInt64} {
			check("×int", a, FromInt(n), a.MulInt(n), new(big.Rat).Mul(ra, new(big.Rat).SetInt64(n)))
		}
		for _, b := range as {
			rb := rat(b)
			check("+", a, b, a.Add(b), new(big.Rat).Add(ra, rb))
			check("-", a, b, a.Sub(b), new(big.Rat).Sub(ra, rb))
			check("×", a, b, a.Mul(b), halfEven(new(big.Rat).Mul(ra, rb)))
			if got, want := a.Mul(b), fromDecimal(a.dec().Mul(b.dec()).RoundBank(Scale)); !got.Equal(want) {
				t.Fatalf("%s × %s = %s, the decimal form's %s", a, b, got, want)
			}
			if c := a.Cmp(b); c != ra.Cmp(rb) || a.Equal(b) != (c == 0) {
				t.Fatalf("Cmp(%s, %s) = %d", a, b, c)
			}
			if b.IsZero() {
				continue
			}
			q := new(big.Rat).Quo(ra, rb)
			check("÷", a, b, a.Div(b), halfEven(q))
			if got, want := a.Div(b), fromDecimal(divDecimal(a.dec(), b.dec())); !got.Equal(want) {
				t.Fatalf("%s ÷ %s = %s, the decimal form's %s", a, b, got, want)
			}
			trunc := new(big.Int).Quo(q.Num(), q.Denom())
			if trunc.IsInt64() {
				if got := a.Quo(b); got != trunc.Int64() {
					t.Fatalf("%s.Quo(%s) = %d, want %s", a, b, got, trunc)
				}
				ceil := new(big.Int).Set(trunc)
				if !q.IsInt() && q.Sign() > 0 {
					ceil.Add(ceil, big.NewInt(1))
				}
				if got := a.DivCeil(b); ceil.IsInt64() && got != ceil.Int64() {
					t.Fatalf("%s.DivCeil(%s) = %d, want %s", a, b, got, ceil)
				}
			}
		}
	}
}

// TestAmountFormsAllocateNothing: the arithmetic and formatting of
// amounts held as integers allocate nothing.
func TestAmountFormsAllocateNothing(t *testing.T) {
	a, b := MustParse("1234.5678901234"), MustParse("0.0038051800")
	var buf [40]byte
	var sink Amount
	if n := testing.AllocsPerRun(100, func() {
		sink = a.Add(b).Sub(b).MulInt(7).Mul(b).Div(a).Neg()
		_ = sink.AppendFixed(buf[:0])
		_ = a.Cmp(b) + int(a.Quo(b)+a.DivCeil(b))
	}); n != 0 {
		t.Errorf("%v allocations an operation", n)
	}
}
