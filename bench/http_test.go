package bench

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/cmd/ccwallet/replicas"
	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
	"github.com/ccwallet/ccwallet/web"
)

const benchAudience = "https://ccwallet.bench"

// httpEnv is the whole app (JSON APIs and web wallet, the router
// cmd/ccwallet serves) on a loopback HTTP server over a fresh Postgres
// ledger. db is the ledger's database, for bulk seeding.
type httpEnv struct {
	b        testing.TB
	db       *store.DB
	l        *ledger.Ledger
	srv      *httptest.Server
	key      ed25519.PrivateKey
	sessions *web.Sessions
	client   *http.Client

	// server-side time of each request whose path is timedPath.
	mu        sync.Mutex
	timedPath string
	served    []time.Duration
}

func newHTTPEnv(b testing.TB) *httpEnv {
	b.Helper()
	ctx := context.Background()
	db := ledgertest.DB(b, store.Postgres)
	clock := ledgertest.NewClock()
	l, err := ledgertest.OpenLedger(ctx, db, ledger.Config{AdminUsers: []string{"admin"}, DevNet: true, Now: clock.Now})
	if err != nil {
		b.Fatal(err)
	}
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	v, err := web.NewVerifier(web.AuthConfig{Audience: benchAudience, Issuer: "bench", StaticKeys: map[string]crypto.PublicKey{"k1": key.Public()}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	// Sessions live in the database, as cmd/ccwallet keeps them.
	sessions, err := web.NewSessions(web.SessionConfig{Secret: web.DevSessionSecret, Store: replicas.Sessions(db)})
	if err != nil {
		b.Fatal(err)
	}
	// The collector's target as ccwallet serve sets it (cmd/ccwallet/gc.go).
	if _, ok := os.LookupEnv("GOGC"); !ok {
		debug.SetGCPercent(200)
	}
	e := &httpEnv{b: b, db: db, l: l, key: key, sessions: sessions}
	stop := make(chan struct{})
	ui := &handlers.UI{Sessions: sessions, Shutdown: stop}
	routes := handlers.New(l, handlers.Config{Auth: v, UI: ui}, nil).Routes(web.NewHealthHandler(web.HealthConfig{}))
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		routes.ServeHTTP(w, r)
		d := time.Since(t0)
		e.mu.Lock()
		if r.URL.Path == e.timedPath {
			e.served = append(e.served, d)
		}
		e.mu.Unlock()
	}))
	e.client = &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 256},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	b.Cleanup(func() {
		close(stop)
		e.srv.Close()
		if _, err := l.CheckConservation(context.Background()); err != nil {
			b.Errorf("after the benchmark: %v", err)
		}
	})
	return e
}

// token is a bearer token for user, signed as the tests sign them.
func (e *httpEnv) token(user string) string {
	tok, err := web.SignDevToken(e.key, "k1", "bench", benchAudience, user, 2*time.Hour)
	if err != nil {
		e.b.Fatal(err)
	}
	return tok
}

// sessionCookie logs user in to the web wallet without a browser: it
// starts a session as the OIDC callback does and returns its cookie.
func (e *httpEnv) sessionCookie(user string) *http.Cookie {
	rec := httptest.NewRecorder()
	if _, err := e.sessions.Start(rec, httptest.NewRequest(http.MethodGet, "/auth/callback", nil), user, web.Tokens{}); err != nil {
		e.b.Fatal(err)
	}
	cs := rec.Result().Cookies()
	if len(cs) == 0 {
		e.b.Fatal("no session cookie")
	}
	return cs[0]
}

// do sends one request and returns status and body.
func (e *httpEnv) do(req *http.Request) (int, []byte, error) {
	resp, err := e.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// timed runs fn n times one after another and returns the server-side
// times of the requests to path, sorted.
func (e *httpEnv) timed(path string, n int, fn func() error) ([]time.Duration, error) {
	e.mu.Lock()
	e.timedPath, e.served = path, nil
	e.mu.Unlock()
	for range n {
		if err := fn(); err != nil {
			return nil, err
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	out := slices.Clone(e.served)
	e.timedPath, e.served = "", nil
	slices.Sort(out)
	return out, nil
}

// quantile of sorted values, durations or milliseconds (q in [0, 1]).
func quantile[T time.Duration | float64](sorted []T, q float64) T {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q * float64(len(sorted)))
	return sorted[min(i, len(sorted)-1)]
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

var assetRe = regexp.MustCompile(`(?:<link[^>]+href|<script[^>]+src)="(/[^"]+)"`)

// sameOriginAssets lists the same-origin stylesheets and scripts a page
// references.
func sameOriginAssets(page string) []string {
	var out []string
	for _, m := range assetRe.FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], "//") {
			out = append(out, m[1])
		}
	}
	return out
}
