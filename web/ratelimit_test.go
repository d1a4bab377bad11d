package web

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestLimiter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := NewLimiter(RateLimit{Burst: 3, Per: time.Minute})
	l.now = func() time.Time { return now }
	for i := range 3 {
		if ok, _ := l.Allow("alice"); !ok {
			t.Fatalf("request %d refused within the burst", i+1)
		}
	}
	ok, retry := l.Allow("alice")
	if ok || retry <= 0 || retry > 20*time.Second {
		t.Fatalf("4th request: ok=%v retry=%v; want refused with ~20 s", ok, retry)
	}
	if ok, _ := l.Allow("bob"); !ok {
		t.Error("another caller was limited by alice's requests")
	}
	now = now.Add(21 * time.Second)
	if ok, _ := l.Allow("alice"); !ok {
		t.Error("a token was not refilled after its interval")
	}
	if ok, _ := (*Limiter)(nil).Allow("x"); !ok {
		t.Error("a nil limiter must allow")
	}
	if ok, _ := NewLimiter(RateLimit{}).Allow("x"); !ok {
		t.Error("a zero burst must disable limiting")
	}
}

func TestLimitByIP(t *testing.T) {
	l := NewLimiter(RateLimit{Burst: 1, Per: time.Hour})
	h := l.LimitByIP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
	do := func(addr string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = addr
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	if w := do("10.0.0.1:1"); w.Code != 204 {
		t.Fatalf("first: %d", w.Code)
	}
	w := do("10.0.0.1:2")
	if w.Code != 429 || w.Header().Get("Retry-After") == "" {
		t.Fatalf("second from the same IP: %d, Retry-After %q", w.Code, w.Header().Get("Retry-After"))
	}
	if w := do("10.0.0.2:1"); w.Code != 204 {
		t.Errorf("another IP: %d", w.Code)
	}
}
