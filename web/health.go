package web

import (
	"context"
	"fmt"
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

// HealthHandler serves GET /livez and GET /readyz, for the health port.
//
// /livez answers 200 whenever the process can serve HTTP at all; it checks no
// dependency, because restarting the process does not fix a database outage.
// /readyz runs every check concurrently and answers 200 {"status":"ok"} when
// all pass within 2 s, else 503 {"error": "<name>: <err>"} naming the first
// failing check in name order, so the answer is stable between probes.
func HealthHandler(checks map[string]HealthChecker) http.Handler {
	return healthHandler(checks, readyTimeout)
}

func healthHandler(checks map[string]HealthChecker, timeout time.Duration) http.Handler {
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
		if err := runChecks(ctx, timeout, names, checks); err != nil {
			WriteError(w, http.StatusServiceUnavailable, err.Error())
			return
		}
		_ = WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	return mux
}

// runChecks runs all checks at once and waits until they are done or ctx
// ends. A check that ignores ctx is abandoned rather than waited for, so a
// hung dependency cannot hang the probe.
func runChecks(ctx context.Context, timeout time.Duration, names []string, checks map[string]HealthChecker) error {
	results := make([]chan error, len(names))
	for i, name := range names {
		results[i] = make(chan error, 1) // buffered: an abandoned check must not leak blocked
		go func() { results[i] <- checks[name](ctx) }()
	}
	for i, name := range names {
		select {
		case err := <-results[i]:
			if err != nil && ctx.Err() != nil {
				// Most likely the check gave up because of our deadline;
				// say so rather than "context deadline exceeded".
				return fmt.Errorf("%s: no answer within %s", name, timeout)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		case <-ctx.Done():
			return fmt.Errorf("%s: no answer within %s", name, timeout)
		}
	}
	return nil
}
