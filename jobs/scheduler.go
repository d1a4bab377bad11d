// Package jobs runs the wallet's automations in-process as gocron jobs.
// Each automation is one file holding a constructor that returns a Job, a
// thin call into package ledger; cmd picks the jobs and hands them to a
// Scheduler. With several replicas on one database a lease per job (table
// job_leases, through the ledger) keeps each run to one replica; the
// ledger's guarded updates keep a double run harmless anyway.
package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-co-op/gocron/v2"
)

// Job is one automation: a name, a schedule (Every or Cron, exactly one)
// and the work.
type Job struct {
	// Name identifies the job in status, logs and the lease table.
	Name string
	// Every runs the job on a fixed interval.
	Every time.Duration
	// Cron runs the job on a cron expression (five fields, or six with
	// seconds first).
	Cron string
	// Lease is how long one replica keeps the job once it ran; another
	// replica may run it only after that. Default: 90% of Every, or one
	// minute for cron jobs.
	Lease time.Duration
	// Run does the work; its error is recorded in the job's status.
	Run func(ctx context.Context) error
	// About says in words what the job's rhythm means to people when its
	// schedule alone misleads (the round clock checks every minute, but a
	// round lasts ten); "" for none.
	About string
}

// Leaser is what the scheduler needs shared between replicas: a lease per
// job (cmd/ccwallet/replicas keeps them in the database).
type Leaser interface {
	// AcquireLease takes (or renews) the lease that lets holder run the
	// job name until now+ttl; false means another replica holds a live
	// lease.
	AcquireLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error)
	// ReleaseLease gives up holder's lease on name so another replica may
	// run the job at once (used on shutdown).
	ReleaseLease(ctx context.Context, name, holder string) error
}

// Config tunes a Scheduler.
type Config struct {
	// Holder names this replica in the lease table; default host name plus
	// a random suffix.
	Holder string
	// StopTimeout bounds how long Shutdown waits for running jobs.
	StopTimeout time.Duration
	// Now is the clock leases are measured with; nil means time.Now.
	Now func() time.Time
	// OnRun, when set, is called after every run with the job's name, the
	// run's duration and its error (the metrics hook).
	OnRun func(name string, d time.Duration, err error)
	// MaxConsecutiveFailures is how many failed runs in a row make Check
	// fail; default DefaultMaxConsecutiveFailures.
	MaxConsecutiveFailures int
}

// DefaultMaxConsecutiveFailures: five failed runs in a row (2.5 minutes for
// a 30 s job) mark the scheduler unhealthy. One failure is often a
// transient conflict or a database restart; five is a stuck automation
// that needs an operator.
const DefaultMaxConsecutiveFailures = 5

// Status is one job's state, as the admin page and GET /v0/admin/jobs
// show it.
type Status struct {
	Name     string    `json:"name"`
	Schedule string    `json:"schedule"`
	About    string    `json:"about,omitempty"`
	LastRun  time.Time `json:"last_run,omitzero"`
	NextRun  time.Time `json:"next_run,omitzero"`
	// LastDuration is the last run's duration.
	LastDuration time.Duration `json:"last_duration_ns"`
	LastError    string        `json:"last_error,omitempty"`
	// Runs counts runs on this replica; Skipped counts periods another
	// replica held the lease.
	Runs    int64 `json:"runs"`
	Failed  int64 `json:"failures"`
	Skipped int64 `json:"skipped"`
	Running bool  `json:"running"`
	// ConsecutiveFailures counts failed runs since the last success.
	ConsecutiveFailures int `json:"consecutive_failures"`
}

// Scheduler runs Jobs. Safe for concurrent use.
type Scheduler struct {
	s      gocron.Scheduler
	leaser Leaser
	cfg    Config
	log    *slog.Logger

	mu      sync.Mutex
	started bool
	stopped bool
	status  map[string]*Status
	jobs    map[string]gocron.Job
	order   []string
}

// New validates jobs and builds a scheduler for them; Start runs it. A job
// with a bad schedule is refused here, with a message naming it.
func New(leaser Leaser, jobs []Job, cfg Config, log *slog.Logger) (*Scheduler, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxConsecutiveFailures <= 0 {
		cfg.MaxConsecutiveFailures = DefaultMaxConsecutiveFailures
	}
	if cfg.StopTimeout <= 0 {
		cfg.StopTimeout = 30 * time.Second
	}
	if cfg.Holder == "" {
		host, _ := os.Hostname()
		b := make([]byte, 4)
		_, _ = rand.Read(b)
		cfg.Holder = host + "-" + hex.EncodeToString(b)
	}
	sc := &Scheduler{leaser: leaser, cfg: cfg, log: log, status: map[string]*Status{}, jobs: map[string]gocron.Job{}}
	ttls := map[string]time.Duration{}
	for _, j := range jobs {
		if err := j.validate(); err != nil {
			return nil, err
		}
		if _, dup := ttls[j.Name]; dup {
			return nil, fmt.Errorf("job %q: defined twice", j.Name)
		}
		ttls[j.Name] = j.lease()
	}
	var locker gocron.Locker = &leaseLocker{sc: sc, ttls: ttls}
	s, err := gocron.NewScheduler(gocron.WithDistributedLocker(locker), gocron.WithStopTimeout(cfg.StopTimeout),
		gocron.WithGlobalJobOptions(gocron.WithSingletonMode(gocron.LimitModeReschedule)))
	if err != nil {
		return nil, fmt.Errorf("create scheduler: %w", err)
	}
	sc.s = s
	for _, j := range jobs {
		var def gocron.JobDefinition
		var schedule string
		if j.Cron != "" {
			spec, _ := ParseCron(j.Cron) // checked by validate
			def, schedule = gocron.CronJob(spec.Expr, spec.Seconds), "cron "+j.Cron
		} else {
			def, schedule = gocron.DurationJob(j.Every), "every "+j.Every.String()
		}
		gj, err := s.NewJob(def, gocron.NewTask(sc.wrap(j)), gocron.WithName(j.Name))
		if err != nil {
			_ = s.Shutdown()
			return nil, fmt.Errorf("job %q: schedule %s: %w", j.Name, schedule, err)
		}
		sc.jobs[j.Name] = gj
		sc.status[j.Name] = &Status{Name: j.Name, Schedule: schedule, About: j.About}
		sc.order = append(sc.order, j.Name)
	}
	sort.Strings(sc.order)
	return sc, nil
}

func (j Job) validate() error {
	switch {
	case j.Name == "":
		return errors.New("job without a name")
	case j.Run == nil:
		return fmt.Errorf("job %q: no work", j.Name)
	case j.Cron != "" && j.Every != 0:
		return fmt.Errorf("job %q: set either an interval or a cron expression, not both", j.Name)
	case j.Cron == "" && j.Every <= 0:
		return fmt.Errorf("job %q: interval must be positive, not %s", j.Name, j.Every)
	case j.Cron != "":
		if _, err := ParseCron(j.Cron); err != nil {
			return fmt.Errorf("job %q: cron expression %w", j.Name, err)
		}
	}
	return nil
}

func (j Job) lease() time.Duration {
	switch {
	case j.Lease > 0:
		return j.Lease
	case j.Every > 0:
		return j.Every * 9 / 10
	}
	return time.Minute
}

// wrap records a run's outcome in the job's status.
func (sc *Scheduler) wrap(j Job) func(ctx context.Context) {
	return func(ctx context.Context) {
		start := sc.cfg.Now()
		sc.update(j.Name, func(s *Status) { s.Running = true })
		err := safeRun(ctx, j.Run)
		d := sc.cfg.Now().Sub(start)
		sc.update(j.Name, func(s *Status) {
			s.Running, s.LastRun, s.LastDuration = false, start, d
			s.Runs++
			s.LastError = ""
			if err != nil {
				s.Failed++
				s.ConsecutiveFailures++
				s.LastError = err.Error()
			} else {
				s.ConsecutiveFailures = 0
			}
		})
		if sc.cfg.OnRun != nil {
			sc.cfg.OnRun(j.Name, d, err)
		}
		if err != nil && ctx.Err() == nil {
			sc.log.Error("job failed", "job", j.Name, "duration", d, "err", err)
		} else {
			sc.log.Debug("job ran", "job", j.Name, "duration", d)
		}
	}
}

// safeRun turns a panicking job into a failed run, so one bad automation
// cannot take the process down.
func safeRun(ctx context.Context, fn func(context.Context) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return fn(ctx)
}

func (sc *Scheduler) update(name string, fn func(*Status)) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if s, ok := sc.status[name]; ok {
		fn(s)
	}
}

// Start begins running the jobs.
func (sc *Scheduler) Start() {
	sc.mu.Lock()
	sc.started = true
	sc.mu.Unlock()
	sc.s.Start()
}

// Check is the scheduler's health check: it fails when the scheduler is not
// running (never started, or shut down) or when a job has failed
// MaxConsecutiveFailures times in a row, naming the job and its last error.
func (sc *Scheduler) Check(context.Context) error {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if !sc.started || sc.stopped {
		return errors.New("scheduler is not running")
	}
	var bad []string
	for _, name := range sc.order {
		if s := sc.status[name]; s.ConsecutiveFailures >= sc.cfg.MaxConsecutiveFailures {
			bad = append(bad, fmt.Sprintf("job %s failed %d times in a row: %s", name, s.ConsecutiveFailures, s.LastError))
		}
	}
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, "; "))
	}
	return nil
}

// Shutdown stops the jobs, waiting up to StopTimeout for running ones, and
// releases this replica's leases so another can take over at once.
func (sc *Scheduler) Shutdown(ctx context.Context) error {
	sc.mu.Lock()
	sc.stopped = true
	sc.mu.Unlock()
	err := sc.s.Shutdown()
	for _, name := range sc.order {
		if rerr := sc.leaser.ReleaseLease(ctx, name, sc.cfg.Holder); rerr != nil && err == nil {
			err = rerr
		}
	}
	return err
}

// Statuses returns every job's status, by name.
func (sc *Scheduler) Statuses() []Status {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	out := make([]Status, 0, len(sc.order))
	for _, name := range sc.order {
		s := *sc.status[name]
		if next, err := sc.jobs[name].NextRun(); err == nil {
			s.NextRun = next
		}
		out = append(out, s)
	}
	return out
}

// Holder is this replica's name in the lease table.
func (sc *Scheduler) Holder() string { return sc.cfg.Holder }

// leaseLocker is the gocron Locker over the ledger's lease table.
type leaseLocker struct {
	sc   *Scheduler
	ttls map[string]time.Duration
}

// errLeaseHeld tells gocron to skip this run: another replica has it.
var errLeaseHeld = errors.New("lease held by another replica")

func (k *leaseLocker) Lock(ctx context.Context, key string) (gocron.Lock, error) {
	ok, err := k.sc.leaser.AcquireLease(ctx, key, k.sc.cfg.Holder, k.sc.cfg.Now(), k.ttls[key])
	if err != nil {
		k.sc.log.Warn("job lease", "job", key, "err", err)
		return nil, err
	}
	if !ok {
		k.sc.update(key, func(s *Status) { s.Skipped++ })
		return nil, errLeaseHeld
	}
	return leaseLock{}, nil
}

// leaseLock keeps the lease after the run on purpose: releasing it would let
// a replica whose timer fires a moment later run the same period again. The
// lease lapses just before this replica's next run.
type leaseLock struct{}

func (leaseLock) Unlock(context.Context) error { return nil }
