package main

import (
	"fmt"
	"strconv"
	"strings"
)

// cronField is one field of a cron expression: its name and value range.
type cronField struct {
	name     string
	min, max int
	names    []string // JAN.. or SUN.., index+min is the value
}

var (
	cronSeconds = cronField{name: "seconds", min: 0, max: 59}
	cronMinutes = cronField{name: "minutes", min: 0, max: 59}
	cronHours   = cronField{name: "hours", min: 0, max: 23}
	cronDOM     = cronField{name: "day of month", min: 1, max: 31}
	cronMonth   = cronField{name: "month", min: 1, max: 12,
		names: []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}}
	cronDOW  = cronField{name: "day of week", min: 0, max: 7, names: []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}}
	cronYear = cronField{name: "year", min: 1970, max: 2199}
)

// validateCron accepts the standard five-field form (minute hour
// day-of-month month day-of-week), and the Quartz forms Splice's
// participantPruningSchedule uses: six fields with seconds first, or seven
// with a year, e.g. "0 /10 * * * ?". Also the @hourly style descriptors.
func validateCron(expr string) error {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return fmt.Errorf("empty cron expression")
	}
	switch expr {
	case "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly":
		return nil
	}
	f := strings.Fields(expr)
	var fields []cronField
	switch len(f) {
	case 5:
		fields = []cronField{cronMinutes, cronHours, cronDOM, cronMonth, cronDOW}
	case 6:
		fields = []cronField{cronSeconds, cronMinutes, cronHours, cronDOM, cronMonth, cronDOW}
	case 7:
		fields = []cronField{cronSeconds, cronMinutes, cronHours, cronDOM, cronMonth, cronDOW, cronYear}
	default:
		return fmt.Errorf("%q has %d fields; want 5 (min hour dom month dow) or 6-7 (Quartz: sec min hour dom month dow [year])", expr, len(f))
	}
	for i, fld := range fields {
		if err := fld.check(f[i]); err != nil {
			return fmt.Errorf("%q: %s field %q: %v", expr, fld.name, f[i], err)
		}
	}
	return nil
}

func (fld cronField) check(s string) error {
	if s == "?" {
		if fld.name != cronDOM.name && fld.name != cronDOW.name {
			return fmt.Errorf("? is only allowed for day of month and day of week")
		}
		return nil
	}
	for part := range strings.SplitSeq(s, ",") {
		if err := fld.checkPart(part); err != nil {
			return err
		}
	}
	return nil
}

func (fld cronField) checkPart(p string) error {
	rng, step, hasStep := strings.Cut(p, "/")
	if hasStep {
		n, err := strconv.Atoi(step)
		if err != nil || n <= 0 {
			return fmt.Errorf("step %q must be a positive number", step)
		}
		if rng == "" { // Quartz "/10" means "*/10"
			return nil
		}
	}
	if rng == "*" {
		return nil
	}
	// Quartz extras: L (last), W (weekday), # (nth weekday).
	if fld.name == cronDOM.name && (rng == "L" || rng == "LW" || strings.HasSuffix(rng, "W")) {
		if rng == "L" || rng == "LW" {
			return nil
		}
		_, err := fld.value(strings.TrimSuffix(rng, "W"))
		return err
	}
	if fld.name == cronDOW.name {
		if d, n, ok := strings.Cut(rng, "#"); ok {
			if k, err := strconv.Atoi(n); err != nil || k < 1 || k > 5 {
				return fmt.Errorf("#%s must be 1 to 5", n)
			}
			_, err := fld.value(d)
			return err
		}
		if v, ok := strings.CutSuffix(rng, "L"); ok && v != "" {
			_, err := fld.value(v)
			return err
		}
	}
	lo, hi, isRange := strings.Cut(rng, "-")
	a, err := fld.value(lo)
	if err != nil {
		return err
	}
	if isRange {
		b, err := fld.value(hi)
		if err != nil {
			return err
		}
		if a > b {
			return fmt.Errorf("range %s is backwards", rng)
		}
	}
	return nil
}

func (fld cronField) value(s string) (int, error) {
	for i, n := range fld.names {
		if strings.EqualFold(s, n) {
			return fld.min + i, nil
		}
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if v < fld.min || v > fld.max {
		return 0, fmt.Errorf("%d is outside %d-%d", v, fld.min, fld.max)
	}
	return v, nil
}
