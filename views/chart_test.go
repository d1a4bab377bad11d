package views

import (
	"regexp"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
)

func points(values ...string) []ChartPoint {
	out := make([]ChartPoint, len(values))
	for i, v := range values {
		out[i] = ChartPoint{Label: "p" + string(rune('0'+i)), Value: coin.MustParse(v)}
	}
	return out
}

// ys lists a step path's y coordinates: the M's, then every V.
var ysRe = regexp.MustCompile(`(?:M[0-9.]+ |V)([0-9.]+)`)

func ys(path string) []string {
	var out []string
	for _, m := range ysRe.FindAllStringSubmatch(path, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestStepChart(t *testing.T) {
	t.Run("empty", func(t *testing.T) {
		c := StepChart("c", "Balance", nil)
		if !c.Empty() || c.Path != "" || c.Summary != "Balance: nothing yet." {
			t.Errorf("empty chart: %+v", c)
		}
		got := renderString(t, LineChartView(c))
		if strings.Contains(got, "<svg") || !strings.Contains(got, "nothing yet") {
			t.Errorf("empty chart renders %s", got)
		}
	})
	t.Run("one point", func(t *testing.T) {
		c := StepChart("c", "Balance", points("5"))
		if c.Path != "M6.0 60.0H594.0" || c.Points != 1 {
			t.Errorf("one point: %q", c.Path)
		}
	})
	t.Run("flat", func(t *testing.T) {
		c := StepChart("c", "Balance", points("7", "7", "7"))
		for _, y := range ys(c.Path) {
			if y != "60.0" {
				t.Errorf("flat line at y %s, want the middle: %s", y, c.Path)
			}
		}
		if len(ys(c.Path)) != 3 {
			t.Errorf("flat line of 3 values has %d points: %s", len(ys(c.Path)), c.Path)
		}
	})
	t.Run("scaled", func(t *testing.T) {
		c := StepChart("c", "Balance", points("100", "150", "50", "1000.5"))
		// 50 at the bottom (114), 1000.5 at the top (6), the others by
		// their exact share of the 950.5 between.
		want := []string{"108.3", "102.6", "114.0", "6.0"}
		if got := ys(c.Path); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("ys %v, want %v (path %s)", got, want, c.Path)
		}
		if !strings.Contains(c.Summary, "From 100 CC (p0) to 1,000.5 CC (p3); lowest 50 CC, highest 1,000.5 CC") {
			t.Errorf("summary %q", c.Summary)
		}
	})
	t.Run("huge", func(t *testing.T) {
		// The largest amount a column holds, beside the smallest: the
		// ratios are exact decimals, so nothing overflows or goes NaN.
		big := strings.Repeat("9", 28)
		c := StepChart("c", "Balance", points("0.0000000001", big+".9999999999", big+".9999999998"))
		got := ys(c.Path)
		if len(got) != 3 || got[0] != "114.0" || got[1] != "6.0" || got[2] != "6.0" {
			t.Errorf("huge: %v", got)
		}
		if !strings.Contains(c.Summary, "highest 9,999,999,999,999,999,999,999,999,999.9999999999 CC") {
			t.Errorf("huge summary not exact: %q", c.Summary)
		}
	})
	t.Run("renders accessible", func(t *testing.T) {
		got := renderString(t, LineChartView(StepChart("bal", "Balance", points("1", "2"))))
		for _, want := range []string{`role="img"`, `aria-labelledby="bal-t"`, `<title id="bal-t">Balance: From 1 CC (p0) to 2 CC (p1)`, `aria-hidden="true">From 1 CC (p0) to 2 CC (p1); lowest 1 CC, highest 2 CC.</p>`, `data-points="2"`, `viewBox="0 0 600 120"`} {
			if !strings.Contains(got, want) {
				t.Errorf("line chart lacks %s: %s", want, got)
			}
		}
		if strings.Contains(got, " style=") || strings.Contains(got, "<script") {
			t.Errorf("inline style or script: %s", got)
		}
	})
}

func TestSizeHistogram(t *testing.T) {
	amounts := func(vs ...string) []coin.Amount {
		out := make([]coin.Amount, len(vs))
		for i, v := range vs {
			out[i] = coin.MustParse(v)
		}
		return out
	}
	t.Run("empty", func(t *testing.T) {
		c := SizeHistogram("h", "Holdings by size", nil)
		if !c.Empty() || len(c.Bars) != 0 {
			t.Errorf("empty: %+v", c)
		}
	})
	t.Run("one", func(t *testing.T) {
		c := SizeHistogram("h", "Holdings by size", amounts("5"))
		if len(c.Bars) != 1 || c.Bars[0].Label != "1–10" || c.Bars[0].Count != "1" || c.Bars[0].H != "114.0" {
			t.Errorf("one: %+v", c.Bars)
		}
	})
	t.Run("decades", func(t *testing.T) {
		c := SizeHistogram("h", "Holdings by size", amounts("0.05", "0.09", "1", "9.9999999999", "10", "12000", "0"))
		var got []string
		for _, b := range c.Bars {
			got = append(got, b.Label+"="+b.Count)
		}
		// Six bars up to 10k–100k: 0.05, 0.09 and 0 fall in the first.
		want := "< 1=3 1–10=2 10–100=1 100–1k=0 1k–10k=0 10k–100k=1"
		if strings.Join(got, " ") != want {
			t.Errorf("bars %v, want %s", got, want)
		}
		if c.Summary != "Holdings by size: 3 of < 1, 2 of 1–10, 1 of 10–100, 0 of 100–1k, 0 of 1k–10k, 1 of 10k–100k." {
			t.Errorf("summary %q", c.Summary)
		}
	})
	t.Run("huge", func(t *testing.T) {
		c := SizeHistogram("h", "Holdings by size", amounts(strings.Repeat("9", 28)+".9999999999", "0.0000000001"))
		if len(c.Bars) != 6 || c.Bars[5].Label != "1000000000000000T–10000000000000000T" || c.Bars[0].Count != "1" {
			t.Errorf("huge: %+v", c.Bars)
		}
	})
	t.Run("renders accessible", func(t *testing.T) {
		got := renderString(t, HistogramView(SizeHistogram("hs", "Holdings by size", amounts("1", "20", "30"))))
		for _, want := range []string{`role="img"`, `<title id="hs-t">Holdings by size: 1 of 1–10, 2 of 10–100.</title>`, `data-points="2"`, `class="sr-only"`, `<td>10–100</td><td>2</td>`} {
			if !strings.Contains(got, want) {
				t.Errorf("histogram lacks %s: %s", want, got)
			}
		}
		if n := strings.Count(got, "<rect "); n != 2 {
			t.Errorf("%d bars, want 2", n)
		}
	})
}
