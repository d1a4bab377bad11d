package jobs

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/robfig/cron/v3"
)

// CronSpec is a cron schedule as the scheduler runs it: Expr in the
// dialect of gocron's parser (robfig/cron), with a seconds field first
// when Seconds.
type CronSpec struct {
	Expr    string
	Seconds bool
}

// cronParser is the parser gocron runs a six-field job with (seconds
// optional), so what ParseCron accepts, the scheduler runs.
var cronParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ParseCron is the one reading of a cron schedule: `config check` and
// `serve` (through the scheduler) both call it. It accepts the standard
// five fields (minute hour day-of-month month day-of-week), the @daily
// style descriptors, and the Quartz form Canton's and Splice's pruning
// schedules use: six fields with seconds first, or seven with a year of
// "*" (e.g. "0 /10 * * * ?", "0 0 8 ? * SAT"). In the Quartz form "/10"
// means "*/10", "?" means any, and days of the week count 1 (SUN) to 7
// (SAT). Quartz's L, W, # and a year other than "*" are refused in words:
// the scheduler cannot run them.
func ParseCron(expr string) (CronSpec, error) {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return CronSpec{}, fmt.Errorf("empty cron expression")
	}
	if strings.HasPrefix(expr, "@") {
		if _, err := cronParser.Parse(expr); err != nil {
			return CronSpec{}, fmt.Errorf("%q: %v", expr, err)
		}
		return CronSpec{Expr: expr}, nil
	}
	f := strings.Fields(expr)
	quartz := false
	switch len(f) {
	case 5:
	case 7:
		if y := f[6]; y != "*" && y != "?" {
			return CronSpec{}, fmt.Errorf("%q: year field %q: only * is supported (the scheduler has no year)", expr, y)
		}
		f = f[:6]
		quartz = true
	case 6:
		quartz = true
	default:
		return CronSpec{}, fmt.Errorf("%q has %d fields; want 5 (min hour dom month dow) or 6-7 (Quartz: sec min hour dom month dow [year])", expr, len(f))
	}
	for i, v := range f {
		if strings.ContainsAny(v, "LW#") && !isNamed(v) {
			return CronSpec{}, fmt.Errorf("%q: field %q: Quartz's L, W and # are not supported", expr, v)
		}
		if v == "?" && !(i == len(f)-1 || i == len(f)-3) {
			return CronSpec{}, fmt.Errorf("%q: ? is only allowed for day of month and day of week", expr)
		}
		if quartz {
			v = quartzField(v)
			if i == 5 {
				var err error
				if v, err = quartzDOW(v); err != nil {
					return CronSpec{}, fmt.Errorf("%q: day of week %q: %v", expr, f[i], err)
				}
			}
			f[i] = v
		}
	}
	spec := CronSpec{Expr: strings.Join(f, " "), Seconds: quartz}
	if _, err := cronParser.Parse(spec.Expr); err != nil {
		return CronSpec{}, fmt.Errorf("%q: %v", expr, err)
	}
	return spec, nil
}

// isNamed reports whether v is built of month or day names only (JUL,
// WED), whose letters are not Quartz's L, W, #.
func isNamed(v string) bool {
	for part := range strings.FieldsFuncSeq(v, func(r rune) bool { return r == ',' || r == '-' || r == '/' }) {
		if _, err := strconv.Atoi(part); err == nil || part == "*" || part == "?" {
			continue
		}
		if len(part) != 3 || strings.ContainsFunc(part, func(r rune) bool { return r < 'A' || r > 'Z' && r < 'a' || r > 'z' }) {
			return false
		}
	}
	return true
}

// quartzField rewrites Quartz's "/n" (from the start, every n) as "*/n".
func quartzField(v string) string {
	parts := strings.Split(v, ",")
	for i, p := range parts {
		if strings.HasPrefix(p, "/") {
			parts[i] = "*" + p
		}
	}
	return strings.Join(parts, ",")
}

// quartzDOW maps Quartz's day numbers (1 = SUN .. 7 = SAT) to cron's
// (0 = SUN .. 6 = SAT); names and steps stay.
func quartzDOW(v string) (string, error) {
	parts := strings.Split(v, ",")
	for i, p := range parts {
		rng, step, hasStep := strings.Cut(p, "/")
		ends := strings.Split(rng, "-")
		for j, e := range ends {
			n, err := strconv.Atoi(e)
			if err != nil {
				continue // *, ? or a name
			}
			if n < 1 || n > 7 {
				return "", fmt.Errorf("%d is outside 1-7 (Quartz counts SUN=1 to SAT=7)", n)
			}
			ends[j] = strconv.Itoa(n - 1)
		}
		parts[i] = strings.Join(ends, "-")
		if hasStep {
			parts[i] += "/" + step
		}
	}
	return strings.Join(parts, ","), nil
}
