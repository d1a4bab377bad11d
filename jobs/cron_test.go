package jobs

import (
	"testing"
	"time"
)

// TestParseCron: the one reading of a schedule accepts the standard and
// the Quartz forms the scheduler can run, maps Quartz's days of the week,
// and refuses the rest in words.
func TestParseCron(t *testing.T) {
	good := map[string]CronSpec{
		"0 3 * * *":          {Expr: "0 3 * * *"},
		"*/15 * * * *":       {Expr: "*/15 * * * *"},
		"@daily":             {Expr: "@daily"},
		"0 /10 * * * ?":      {Expr: "0 */10 * * * ?", Seconds: true},
		"0 /5 * * * ?":       {Expr: "0 */5 * * * ?", Seconds: true},
		"0 0 8 ? * SAT":      {Expr: "0 0 8 ? * SAT", Seconds: true},
		"0 0 2 ? * MON-FRI":  {Expr: "0 0 2 ? * MON-FRI", Seconds: true},
		"0 0 2 ? * 2-6":      {Expr: "0 0 2 ? * 1-5", Seconds: true},
		"0 0 12 1/2 JUL ? *": {Expr: "0 0 12 1/2 JUL ?", Seconds: true},
	}
	for e, want := range good {
		got, err := ParseCron(e)
		if err != nil || got != want {
			t.Errorf("ParseCron(%q) = %+v, %v; want %+v", e, got, err, want)
		}
	}
	bad := []string{"", "? 0 * * *", "* * * *", "60 * * * *", "0 24 * * *", "0 0 5-1 * *", "0 0 * * */0", "a b c d e",
		"0 0 L * ?", "0 0 0 ? * 6#3", "0 0 12 15W * ?", "0 0 12 * * ? 2027", "0 0 0 ? * 0", "@often"}
	for _, e := range bad {
		if got, err := ParseCron(e); err == nil {
			t.Errorf("ParseCron(%q) = %+v, want an error", e, got)
		}
	}
	// Quartz's SAT is 7: the schedule runs on a Saturday.
	spec, _ := ParseCron("0 0 8 ? * 7")
	s, err := cronParser.Parse(spec.Expr)
	if err != nil {
		t.Fatal(err)
	}
	if next := s.Next(time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)); next.Weekday() != time.Saturday {
		t.Errorf("Quartz day 7 runs on %s, want Saturday", next.Weekday())
	}
}
