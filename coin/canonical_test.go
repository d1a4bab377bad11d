package coin

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestJSONAmountsCanonical: a JSON amount is a canonical decimal; " 1",
// "1 ", "+1", ".5" and "01" are refused with words (before, accepted).
func TestJSONAmountsCanonical(t *testing.T) {
	for _, s := range []string{" 1", "1 ", "+1", ".5", "01", "00.5", "1.", "-01", "1e3"} {
		var a Amount
		err := json.Unmarshal([]byte(`"`+s+`"`), &a)
		if err == nil {
			t.Errorf("%q accepted as %s", s, a)
		} else if !strings.Contains(err.Error(), "decimal") {
			t.Errorf("%q: %v, want words about a decimal", s, err)
		}
	}
	for s, want := range map[string]string{"1": "1.0000000000", "0.5": "0.5000000000", "10.25": "10.2500000000", "0": "0.0000000000", "-2": "-2.0000000000"} {
		var a Amount
		if err := json.Unmarshal([]byte(`"`+s+`"`), &a); err != nil || a.String() != want {
			t.Errorf("%q = %s, %v; want %s", s, a, err, want)
		}
	}
}
