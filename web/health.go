package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"time"
)

// HealthChecker reports whether one dependency (the database, say) is usable.
// It must honour ctx: readiness gives all checks 2 s together.
type HealthChecker func(ctx context.Context) error

// readyTimeout bounds /readyz: an orchestrator probe usually times out after
// a few seconds, and a slow dependency is as bad as a failing one.
const readyTimeout = 2 * time.Second

// HealthConfig configures NewHealthHandler.
type HealthConfig struct {
	Checks map[string]HealthChecker
	// Log receives a failing check's error. The answer carries only each
	// check's state ("ok", "failing", "timeout"): an error can name the
	// database's host, user and name, and probes are unauthenticated.
	Log *slog.Logger
	// Warnings are configuration warnings, added to /readyz's answer for
	// requests marked with WithHealthDetails (an authenticated admin).
	Warnings []string
}

// NewHealthHandler serves GET /livez and GET /readyz, for the health port.
//
// /livez answers 200 whenever the process can serve HTTP at all; it checks no
// dependency, because restarting the process does not fix a database outage.
// /readyz runs every check concurrently and answers 200
// {"status":"ok","checks":{"<name>":"ok",...}} when all pass within 2 s, else
// 503 {"status":"unavailable","error":"<name>: <reason>","checks":{...}}
// naming the first failing check in name order, so the answer is stable
// between probes.
// A check answering a DegradedError (below) keeps the answer
// 200, with status "degraded" and its reason under "degraded".
func NewHealthHandler(cfg HealthConfig) http.Handler {
	return healthHandler(cfg, readyTimeout)
}

// healthDetailsKey marks a request allowed to see /readyz's details.
type healthDetailsKey struct{}

// WithHealthDetails marks r as allowed to see /readyz's details (the
// configuration warnings); the caller decides who is, e.g. an admin.
func WithHealthDetails(r *http.Request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), healthDetailsKey{}, true))
}

// readyAnswer is /readyz's body.
type readyAnswer struct {
	Status string            `json:"status"`
	Error  string            `json:"error,omitempty"`
	Checks map[string]string `json:"checks"`
	// Degraded names what works at reduced strength (below):
	// "<name>: <reason>", in name order. The answer is still 200.
	Degraded []string `json:"degraded,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

func healthHandler(cfg HealthConfig, timeout time.Duration) http.Handler {
	checks, log := cfg.Checks, cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	names := make([]string, 0, len(checks))
	for name := range checks {
		names = append(names, name)
	}
	slices.Sort(names)

	mux := http.NewServeMux()
	mux.HandleFunc("GET /livez", func(w http.ResponseWriter, r *http.Request) {
		_ = WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		ans := readyAnswer{Status: "ok", Checks: make(map[string]string, len(names))}
		for i, err := range runChecks(ctx, names, checks) {
			state := "ok"
			var deg *DegradedError
			switch {
			case errors.As(err, &deg):
				ans.Checks[names[i]] = "degraded"
				ans.Degraded = append(ans.Degraded, names[i]+": "+deg.Reason)
				if ans.Status == "ok" {
					ans.Status = "degraded"
				}
				continue
			case errors.Is(err, errNoAnswer):
				state = "timeout"
			case err != nil:
				state = "failing"
				log.WarnContext(r.Context(), "readiness check failed", "check", names[i], "err", err)
			}
			ans.Checks[names[i]] = state
			if err != nil && ans.Error == "" {
				ans.Status = "unavailable" // over "degraded"
				ans.Error = names[i] + ": " + state
				if state == "timeout" {
					ans.Error = fmt.Sprintf("%s: no answer within %s", names[i], timeout)
				}
			}
		}
		if details, _ := r.Context().Value(healthDetailsKey{}).(bool); details {
			ans.Warnings = cfg.Warnings
		}
		status := http.StatusOK
		if ans.Error != "" {
			status = http.StatusServiceUnavailable
		}
		_ = WriteJSON(w, status, ans)
	})
	// Anything else on the health port is JSON too, never Go's plain text.
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/readyz" || r.URL.Path == "/livez" {
			w.Header().Set("Allow", "GET, HEAD")
			WriteError(w, http.StatusMethodNotAllowed, r.Method+" is not allowed on "+r.URL.Path+"; use GET")
			return
		}
		WriteError(w, http.StatusNotFound, "no such path on the health port: "+r.URL.Path+" (there are /readyz and /livez)")
	})
	return mux
}

// errNoAnswer is a check that did not answer within the probe's time.
var errNoAnswer = errors.New("no answer in time")

// runChecks runs all checks at once and waits until they are done or ctx
// ends; it returns each check's error, errNoAnswer for one that did not
// answer in time. A check that ignores ctx is abandoned rather than waited
// for, so a hung dependency cannot hang the probe.
func runChecks(ctx context.Context, names []string, checks map[string]HealthChecker) []error {
	results := make([]chan error, len(names))
	for i, name := range names {
		results[i] = make(chan error, 1) // buffered: an abandoned check must not leak blocked
		go func() { results[i] <- checks[name](ctx) }()
	}
	errs := make([]error, len(names))
	for i := range names {
		select {
		case err := <-results[i]:
			if err != nil && ctx.Err() != nil {
				// Most likely the check gave up because of our deadline.
				err = errNoAnswer
			}
			errs[i] = err
		case <-ctx.Done():
			errs[i] = errNoAnswer
		}
	}
	return errs
}

// DegradedError is a readiness check's answer for a dependency that is down
// while the wallet still serves without it (the identity provider's JWKS:
// the keys held keep verifying tokens). /readyz stays 200, with status
// "degraded" and the reason under "degraded": taking the replica out of
// service would turn a partial outage into a full one. Reason is shown to
// unauthenticated probes, so it must name no host, user or secret.
type DegradedError struct {
	Reason string
}

func (e *DegradedError) Error() string { return "degraded: " + e.Reason }
