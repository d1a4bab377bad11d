package web

import (
	"context"
	"errors"
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
		{"ready", map[string]HealthChecker{"db": ok, "jobs": ok}, "/readyz", 200, `{"status":"ok"}`},
		{"ready without checks", nil, "/readyz", 200, `{"status":"ok"}`},
		{"one check fails", map[string]HealthChecker{"db": down, "jobs": ok}, "/readyz", 503, `{"error":"db: connection refused"}`},
		{"first failure by name", map[string]HealthChecker{"zeta": down, "alpha": down}, "/readyz", 503, `{"error":"alpha: connection refused"}`},
		{"check too slow", map[string]HealthChecker{"db": hang}, "/readyz", 503, `{"error":"db: no answer within 50ms"}`},
		{"check ignores ctx", map[string]HealthChecker{"db": deaf}, "/readyz", 503, `{"error":"db: no answer within 50ms"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := healthHandler(tt.checks, 50*time.Millisecond)
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
	h := HealthHandler(nil)
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
	}
}
