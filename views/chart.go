package views

import (
	"strconv"
	"strings"

	"github.com/ccwallet/ccwallet/coin"
)

// Charts are server-rendered inline SVG: no JavaScript, a few hundred
// bytes of path, and a text alternative with the numbers (the svg's
// title and desc, and a visually hidden table where there are categories).
// Every value is an exact amount; only the pixel coordinates computed
// from their ratios are floats.

// ChartPoint is one value of a chart: a label for people (a time, a
// round) and its exact amount.
type ChartPoint struct {
	Label string
	Value coin.Amount
}

// Chart is a chart ready to render.
type Chart struct {
	// ID prefixes the ids the svg's aria-labelledby points at.
	ID string
	// Title names the chart; Summary is its text alternative, numbers
	// included; Legend is what a line chart shows beside it in words (its
	// Summary without the title).
	Title, Summary, Legend string
	// Width and Height are the viewBox's.
	Width, Height int
	// Points counts the values drawn (data-points on the svg).
	Points int
	// Path is a line chart's path; Bars a histogram's bars.
	Path string
	Bars []ChartBar
	// Rows are the values in words, for the hidden table.
	Rows []ChartRow
}

// ChartBar is one bar of a histogram, in pixels, with its labels.
type ChartBar struct {
	X, Y, W, H     string
	LabelX, LabelY string
	CountY         string
	Label, Count   string
}

// ChartRow is one value of a chart in words.
type ChartRow struct{ Label, Value string }

// Empty reports whether the chart has nothing to draw.
func (c Chart) Empty() bool { return c.Points == 0 }

// The line chart's viewBox: wide and short, stretched to the width of its
// container (the stroke does not scale).
const lineW, lineH, linePad = 600, 120, 6

// StepChart draws values as a step line, evenly spaced in their order
// (each step is one change), scaled so that the lowest value is at the
// bottom and the highest at the top; a flat series or a single value is a
// line across the middle.
func StepChart(id, title string, pts []ChartPoint) Chart {
	c := Chart{ID: id, Title: title, Width: lineW, Height: lineH, Points: len(pts)}
	if len(pts) == 0 {
		c.Summary = title + ": nothing yet."
		return c
	}
	lo, hi := pts[0].Value, pts[0].Value
	for _, p := range pts[1:] {
		if p.Value.Cmp(lo) < 0 {
			lo = p.Value
		}
		if p.Value.Cmp(hi) > 0 {
			hi = p.Value
		}
	}
	span := hi.Sub(lo)
	y := func(v coin.Amount) string {
		r := 0.5
		if span.IsPositive() {
			r = ratio(v.Sub(lo), span)
		}
		return px(linePad + (1-r)*(lineH-2*linePad))
	}
	var b strings.Builder
	if len(pts) == 1 {
		b.WriteString("M" + px(linePad) + " " + y(pts[0].Value) + "H" + px(lineW-linePad))
	} else {
		step := float64(lineW-2*linePad) / float64(len(pts)-1)
		b.WriteString("M" + px(linePad) + " " + y(pts[0].Value))
		for i, p := range pts[1:] {
			b.WriteString("H" + px(linePad+float64(i+1)*step) + "V" + y(p.Value))
		}
	}
	c.Path = b.String()
	first, last := pts[0], pts[len(pts)-1]
	c.Legend = "From " + HumanAmount(first.Value.String()) + " CC (" + first.Label + ") to " +
		HumanAmount(last.Value.String()) + " CC (" + last.Label + "); lowest " + HumanAmount(lo.String()) +
		" CC, highest " + HumanAmount(hi.String()) + " CC."
	c.Summary = title + ": " + c.Legend
	return c
}

// ratio is a/b for 0 <= a <= b, b > 0, as a pixel fraction: the exact
// quotient (10 digits) turned float only here.
func ratio(a, b coin.Amount) float64 {
	f, err := strconv.ParseFloat(a.Div(b).String(), 64)
	if err != nil {
		return 0
	}
	return f
}

// px writes a pixel coordinate with one decimal at most.
func px(f float64) string {
	return strconv.FormatFloat(f, 'f', 1, 64)
}

// The histogram's viewBox: phone-sized, so its labels stay readable when
// it is scaled to a 390 px screen.
const barW, barH, barTop, barLabel = 360, 150, 16, 20

// maxBuckets bounds the histogram's bars: holdings smaller than the
// smallest bucket count in it.
const maxBuckets = 6

// SizeHistogram counts amounts by their order of magnitude (1–10,
// 10–100 CC, ...), at most maxBuckets bars up to the largest amount's; a
// holding below the first bar's range (or zero) counts in the first bar.
func SizeHistogram(id, title string, amounts []coin.Amount) Chart {
	c := Chart{ID: id, Title: title, Width: barW, Height: barH}
	if len(amounts) == 0 {
		c.Summary = title + ": no holdings."
		return c
	}
	decades := make([]int, len(amounts))
	hi, lo := decade(amounts[0]), decade(amounts[0])
	for i, a := range amounts {
		decades[i] = decade(a)
		hi, lo = max(hi, decades[i]), min(lo, decades[i])
	}
	lo = max(lo, hi-maxBuckets+1)
	counts := make([]int, hi-lo+1)
	for _, d := range decades {
		counts[max(d, lo)-lo]++
	}
	most := 0
	for _, n := range counts {
		most = max(most, n)
	}
	c.Points = len(counts)
	w := float64(barW) / float64(len(counts))
	parts := make([]string, 0, len(counts))
	for i, n := range counts {
		label := decadeLabel(lo+i, i == 0 && lo > decadeMin(decades))
		h := float64(barH-barTop-barLabel) * float64(n) / float64(most)
		top := float64(barH-barLabel) - h
		c.Bars = append(c.Bars, ChartBar{
			X: px(float64(i)*w + 2), W: px(w - 4), Y: px(top), H: px(h),
			LabelX: px(float64(i)*w + w/2), LabelY: px(barH - 5), CountY: px(top - 4),
			Label: label, Count: strconv.Itoa(n),
		})
		c.Rows = append(c.Rows, ChartRow{Label: label, Value: strconv.Itoa(n)})
		parts = append(parts, strconv.Itoa(n)+" of "+label)
	}
	c.Summary = title + ": " + strings.Join(parts, ", ") + "."
	return c
}

func decadeMin(ds []int) int {
	m := ds[0]
	for _, d := range ds {
		m = min(m, d)
	}
	return m
}

// decade is the order of magnitude of a positive amount, from its exact
// digits: 0 for 1 to 9.99…, 2 for 100 to 999.99…, -2 for 0.01 to 0.099….
// Zero and less count as the smallest amount there is.
func decade(a coin.Amount) int {
	if !a.IsPositive() {
		return -coin.Scale
	}
	whole, frac, _ := strings.Cut(a.String(), ".")
	if whole != "0" {
		return len(whole) - 1
	}
	return -(len(frac) - len(strings.TrimLeft(frac, "0")) + 1)
}

// decadeLabel names a bucket in CC: "1–10", "1k–10k", "0.01–0.1"; the
// first bucket, when it holds smaller amounts too, is "< 10".
func decadeLabel(d int, andBelow bool) string {
	if andBelow {
		return "< " + pow10(d+1)
	}
	return pow10(d) + "–" + pow10(d+1)
}

// pow10 writes 10^d short: 0.001, 1, 100, 10k, 1M, 10B.
func pow10(d int) string {
	switch {
	case d < 0:
		return "0." + strings.Repeat("0", -d-1) + "1"
	case d >= 12:
		return "1" + strings.Repeat("0", d-12) + "T"
	case d >= 9:
		return "1" + strings.Repeat("0", d-9) + "B"
	case d >= 6:
		return "1" + strings.Repeat("0", d-6) + "M"
	case d >= 3:
		return "1" + strings.Repeat("0", d-3) + "k"
	}
	return "1" + strings.Repeat("0", d)
}
