package web

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestHealthHandler(t *testing.T) {
	ok := func(context.Context) error { return nil }
	down := func(context.Context) error { return errors.New("connection refused") }
	hang := func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	deaf := func(context.Context) error { time.Sleep(time.Second); return nil } // ignores ctx

	tests := []struct {
		name     string
		checks   map[string]HealthChecker
		path     string
		wantCode int
		wantBody string
	}{
		{"live with failing checks", map[string]HealthChecker{"db": down}, "/livez", 200, `{"status":"ok"}`},
		{"ready", map[string]HealthChecker{"db": ok, "jobs": ok}, "/readyz", 200, `{"status":"ok","checks":{"db":"ok","jobs":"ok"}}`},
		{"ready without checks", nil, "/readyz", 200, `{"status":"ok","checks":{}}`},
		{"one check fails", map[string]HealthChecker{"db": down, "jobs": ok}, "/readyz", 503,
			`{"status":"unavailable","error":"db: failing","checks":{"db":"failing","jobs":"ok"}}`},
		{"first failure by name", map[string]HealthChecker{"zeta": down, "alpha": down}, "/readyz", 503,
			`{"status":"unavailable","error":"alpha: failing","checks":{"alpha":"failing","zeta":"failing"}}`},
		{"check too slow", map[string]HealthChecker{"db": hang}, "/readyz", 503,
			`{"status":"unavailable","error":"db: no answer within 50ms","checks":{"db":"timeout"}}`},
		{"check ignores ctx", map[string]HealthChecker{"db": deaf}, "/readyz", 503,
			`{"status":"unavailable","error":"db: no answer within 50ms","checks":{"db":"timeout"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := healthHandler(HealthConfig{Checks: tt.checks}, 50*time.Millisecond)
			rec := httptest.NewRecorder()
			start := time.Now()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tt.path, nil))
			if d := time.Since(start); d > 500*time.Millisecond {
				t.Errorf("probe took %s", d)
			}
			if rec.Code != tt.wantCode || strings.TrimSpace(rec.Body.String()) != tt.wantBody {
				t.Errorf("got %d %s, want %d %s", rec.Code, rec.Body, tt.wantCode, tt.wantBody)
			}
		})
	}
}

func TestHealthHandlerMethods(t *testing.T) {
	h := NewHealthHandler(HealthConfig{})
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{http.MethodHead, "/livez", 200},
		{http.MethodPost, "/readyz", 405},
		{http.MethodGet, "/metrics", 404},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
		if rec.Code != tc.want {
			t.Errorf("%s %s = %d, want %d", tc.method, tc.path, rec.Code, tc.want)
		}
		// Every answer, errors included, is JSON (issue 22: never Go's
		// plain-text "404 page not found").
		if ct := rec.Header().Get("Content-Type"); tc.method != http.MethodHead && !strings.HasPrefix(ct, "application/json") {
			t.Errorf("%s %s: Content-Type %q, body %q; want JSON", tc.method, tc.path, ct, rec.Body.String())
		}
		if tc.want == 405 && rec.Header().Get("Allow") == "" {
			t.Errorf("%s %s: 405 without Allow", tc.method, tc.path)
		}
	}
}

// TestReadyzHidesConnectionDetails: a failing check's error (which names
// the database's user, name and host) goes to the log, never into the
// unauthenticated answer; configuration warnings are shown only to a
// request marked WithHealthDetails (issue 21).
func TestReadyzHidesConnectionDetails(t *testing.T) {
	const secret = `failed to connect to user=cnadmin database=participant_3 host=db.internal.example`
	var logs bytes.Buffer
	h := NewHealthHandler(HealthConfig{
		Checks:   map[string]HealthChecker{"database": func(context.Context) error { return errors.New(secret) }},
		Log:      slog.New(slog.NewTextHandler(&logs, nil)),
		Warnings: []string{"disableAuth: authentication is OFF"},
	})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	if body := rec.Body.String(); rec.Code != 503 || strings.Contains(body, "cnadmin") || strings.Contains(body, "db.internal") ||
		strings.Contains(body, "participant_3") || strings.Contains(body, "disableAuth") {
		t.Errorf("/readyz = %d %s: want 503 without connection details or warnings", rec.Code, body)
	}
	if !strings.Contains(logs.String(), "db.internal.example") {
		t.Errorf("the check's error is not in the log: %s", logs.String())
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, WithHealthDetails(httptest.NewRequest(http.MethodGet, "/readyz", nil)))
	if body := rec.Body.String(); !strings.Contains(body, `"warnings":["disableAuth: authentication is OFF"]`) || strings.Contains(body, "cnadmin") {
		t.Errorf("/readyz for an admin = %s: want the warnings and still no connection details", body)
	}
}
