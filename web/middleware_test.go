package web

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRequestID(t *testing.T) {
	tests := []struct {
		name     string
		incoming string
		keep     bool
	}{
		{"absent", "", false},
		{"sane", "abc-123_x.y", true},
		{"too long", strings.Repeat("a", 129), false},
		{"log injection", "a\nlevel=ERROR msg=forged", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var inCtx string
			h := RequestID(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				inCtx = RequestIDFrom(r.Context())
			}))
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			if tt.incoming != "" {
				r.Header.Set(RequestIDHeader, tt.incoming)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			out := rec.Header().Get(RequestIDHeader)
			if out == "" || out != inCtx {
				t.Fatalf("header %q, context %q", out, inCtx)
			}
			if (out == tt.incoming) != tt.keep {
				t.Errorf("id %q, incoming %q, want kept=%v", out, tt.incoming, tt.keep)
			}
		})
	}
}

func TestLoggerLogsPatternNotSecrets(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v0/offers/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
		_, _ = io.WriteString(w, "short and stout")
	})
	h := Chain(mux, RequestID, Logger(log), Recover(log), SecurityHeaders)

	r := httptest.NewRequest(http.MethodGet, "/v0/offers/secret-offer-id?access_token=tok", nil)
	r.Header.Set("Authorization", "Bearer very-secret-token")
	r.Header.Set("Cookie", "session=very-secret-cookie")
	r.Header.Set(RequestIDHeader, "req-1")
	h.ServeHTTP(httptest.NewRecorder(), r)

	line := buf.String()
	for _, secret := range []string{"very-secret", "secret-offer-id", "access_token"} {
		if strings.Contains(line, secret) {
			t.Errorf("log line contains %q: %s", secret, line)
		}
	}
	var entry struct {
		Request map[string]any `json:"request"`
	}
	if err := json.Unmarshal(buf.Bytes(), &entry); err != nil {
		t.Fatalf("log line %q: %v", line, err)
	}
	delete(entry.Request, "duration")
	want := map[string]any{"method": "GET", "path": "GET /v0/offers/{id}", "status": float64(418), "bytes": float64(15), "id": "req-1"}
	if diff := cmp.Diff(want, entry.Request); diff != "" {
		t.Errorf("log mismatch (-want +got):\n%s", diff)
	}
}

func TestLoggerWithoutRoute(t *testing.T) {
	var buf bytes.Buffer
	h := Logger(slog.New(slog.NewJSONHandler(&buf, nil)))(http.NotFoundHandler())
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/nowhere?q=1", nil))
	if !strings.Contains(buf.String(), `"path":"/nowhere"`) || !strings.Contains(buf.String(), `"status":404`) {
		t.Errorf("log line: %s", buf.String())
	}
}

func TestRecover(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	h := Chain(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic("boom")
	}), Logger(log), Recover(log))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	wantInternal(t, rec.Result())
	if got := rec.Header().Get("Content-Type"); got != "application/json; charset=utf-8" {
		t.Errorf("Content-Type = %q", got)
	}
	logs := buf.String()
	if strings.Count(logs, "panic serving request") != 1 || strings.Count(logs, "runtime/debug.Stack") != 1 {
		t.Errorf("want the panic and its stack logged once, got:\n%s", logs)
	}
	if !strings.Contains(logs, `"status":500`) {
		t.Errorf("request line does not show 500:\n%s", logs)
	}
}

func TestRecoverAfterHeaders(t *testing.T) {
	h := Recover(discardLogger())(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		panic("late")
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code != http.StatusAccepted || rec.Body.Len() != 0 {
		t.Errorf("got %d %q; a started response must not get a second body", rec.Code, rec.Body)
	}
}

func TestRecoverRepanicsAbort(t *testing.T) {
	h := Recover(discardLogger())(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic(http.ErrAbortHandler)
	}))
	defer func() {
		if v := recover(); v != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler", v)
		}
	}()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
}

func TestSecurityHeaders(t *testing.T) {
	rec := httptest.NewRecorder()
	SecurityHeaders(http.NotFoundHandler()).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	want := map[string]string{
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "same-origin",
		"X-Frame-Options":         "DENY",
		"Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
	}
	got := map[string]string{}
	for k := range want {
		got[k] = rec.Header().Get(k)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("headers mismatch (-want +got):\n%s", diff)
	}
}

// TestSharedHeaderValuesStayPut: the header values every response
// shares (SecurityHeaders, WriteJSON) must come out of one response as
// they went in, whatever its handler did to its own headers.
func TestSharedHeaderValuesStayPut(t *testing.T) {
	h := SecurityHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/meddle" {
			h := w.Header()
			h.Add("X-Frame-Options", "SAMEORIGIN")
			h.Add("X-Content-Type-Options", "other")
			h.Add("Content-Security-Policy", "default-src *")
			AllowFormAction(w, "https://idp.example")
			h.Add("Cache-Control", "private")
		}
		WriteError(w, http.StatusTeapot, "no")
		if r.URL.Path == "/meddle" {
			w.Header().Add("Content-Type", "text/plain")
		}
	}))
	for _, path := range []string{"/meddle", "/plain"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if path == "/meddle" {
			continue
		}
		want := http.Header{
			"X-Content-Type-Options":  {"nosniff"},
			"Referrer-Policy":         {"same-origin"},
			"X-Frame-Options":         {"DENY"},
			"Content-Security-Policy": {contentSecurityPolicy},
			"Content-Type":            {"application/json; charset=utf-8"},
			"Cache-Control":           {"no-store"},
		}
		if diff := cmp.Diff(want, rec.Header()); diff != "" {
			t.Errorf("after a handler changed its own headers, the next response's (-want +got):\n%s", diff)
		}
	}
}

// TestRecorderShared: Logger, Metrics and Recover next to each other
// share one recorder, and Logger still logs the status Recover wrote.
func TestRecorderShared(t *testing.T) {
	var seen []*statusRecorder
	spy := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if rec, ok := w.(*statusRecorder); ok {
				seen = append(seen, rec)
			}
			next.ServeHTTP(w, r)
		})
	}
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	h := Chain(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		spy(http.NotFoundHandler()).ServeHTTP(w, r)
		panic("boom")
	}), Logger(log), spy, Recover(log))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	if len(seen) != 2 || seen[0] != seen[1] {
		t.Errorf("recorders seen inside Logger and inside Recover: %p, want one shared", seen)
	}
	if !strings.Contains(buf.String(), `"status":404`) {
		t.Errorf("the request line lacks the status written before the panic:\n%s", buf.String())
	}
}

// TestMiddlewareKeepsFlusher: server-sent events need http.Flusher (and
// ResponseController) through every wrapper.
func TestMiddlewareKeepsFlusher(t *testing.T) {
	log := discardLogger()
	h := Chain(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := w.(http.Flusher)
		if !ok {
			t.Error("ResponseWriter is not an http.Flusher")
			return
		}
		_, _ = io.WriteString(w, "data: 1\n\n")
		f.Flush()
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("ResponseController.Flush: %v", err)
		}
	}), RequestID, Logger(log), Recover(log), SecurityHeaders)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/events", nil))
	if !rec.Flushed {
		t.Error("the flush did not reach the underlying writer")
	}
}

func TestChainOrder(t *testing.T) {
	var order []string
	mw := func(name string) Middleware {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				order = append(order, name)
				next.ServeHTTP(w, r)
			})
		}
	}
	Chain(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { order = append(order, "h") }),
		mw("a"), mw("b")).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	if diff := cmp.Diff([]string{"a", "b", "h"}, order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// TestAllowFormAction: a page may add one bare http(s) origin to its
// form-action, and nothing else can be smuggled into the policy.
func TestAllowFormAction(t *testing.T) {
	const base = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'self'; form-action 'self'"
	for origin, want := range map[string]string{
		"https://shop.example":               base + " https://shop.example",
		"http://127.0.0.1:8080":              base + " http://127.0.0.1:8080",
		"http://[::1]:8080":                  base + " http://[::1]:8080",
		"https://shop.example; script-src *": base,
		"https://shop.example/path":          base,
		"javascript:alert(1)":                base,
		"*":                                  base,
		"":                                   base,
		"https://a.com 'unsafe-eval'":        base,
		"https://":                           base,
		"ftp://a.com":                        base,
	} {
		rec := httptest.NewRecorder()
		SecurityHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { AllowFormAction(w, origin) })).
			ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		if got := rec.Header().Get("Content-Security-Policy"); got != want {
			t.Errorf("AllowFormAction(%q): CSP %q, want %q", origin, got, want)
		}
	}
}
