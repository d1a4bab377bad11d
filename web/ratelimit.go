package web

import (
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// RateLimit configures a Limiter: Burst requests at once, refilled at
// Burst per Per. Splice's validator uses 120 per 60 s per client.
type RateLimit struct {
	Burst int
	Per   time.Duration
}

// DefaultRateLimit is 120 requests per minute per caller.
var DefaultRateLimit = RateLimit{Burst: 120, Per: time.Minute}

// Limiter keeps one token bucket per key (a user, or an IP address). Idle
// buckets are dropped so memory stays bounded by active callers.
type Limiter struct {
	cfg     RateLimit
	mu      sync.Mutex
	buckets map[string]*bucket
	now     func() time.Time
	lastGC  time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// NewLimiter returns a Limiter; a zero Burst disables limiting.
func NewLimiter(cfg RateLimit) *Limiter {
	return &Limiter{cfg: cfg, buckets: map[string]*bucket{}, now: time.Now}
}

// Allow takes one token from key's bucket. When none is left it returns
// false and how long until one is.
func (l *Limiter) Allow(key string) (bool, time.Duration) {
	if l == nil || l.cfg.Burst <= 0 {
		return true, 0
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastGC) > l.cfg.Per {
		for k, b := range l.buckets {
			if now.Sub(b.seen) > 2*l.cfg.Per {
				delete(l.buckets, k)
			}
		}
		l.lastGC = now
	}
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{lim: rate.NewLimiter(rate.Limit(float64(l.cfg.Burst)/l.cfg.Per.Seconds()), l.cfg.Burst)}
		l.buckets[key] = b
	}
	b.seen = now
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// TooManyRequests answers 429 with Retry-After (whole seconds, at least 1)
// and a JSON error.
func TooManyRequests(w http.ResponseWriter, retry time.Duration) {
	WriteError(w, http.StatusTooManyRequests, "too many requests; retry after "+strconv.Itoa(RetryAfter(w, retry))+" s")
}

// LimitByIP refuses a client address's requests past its rate with 429.
// Health probes are served elsewhere and never pass through it.
func (l *Limiter) LimitByIP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		if ok, retry := l.Allow("ip:" + host); !ok {
			TooManyRequests(w, retry)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Defaults of the web wallet's limits: login attempts per client address
// (a login takes two: starting it and the provider's callback), and form
// posts per session and per client address (a whole office can share one
// address behind NAT, hence the larger budget).
var (
	DefaultLoginRateLimit      = RateLimit{Burst: 30, Per: time.Minute}
	DefaultFormRateLimit       = RateLimit{Burst: 60, Per: time.Minute}
	DefaultFormClientRateLimit = RateLimit{Burst: 300, Per: time.Minute}
)

// RetryAfter sets Retry-After to retry in whole seconds (at least 1) and
// returns the value.
func RetryAfter(w http.ResponseWriter, retry time.Duration) int {
	s := int(math.Max(1, math.Ceil(retry.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(s))
	return s
}
