package ui_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestUIEventsCaps: the streams of one login, of one user and of everyone
// each have a cap, past which /events answers 429 with Retry-After; a
// closed stream frees its place.
func TestUIEventsCaps(t *testing.T) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			e := handlerstest.NewUIEnvWith(t, engine, func(cfg *handlers.Config) {
				cfg.UI.EventStreamsPerSession, cfg.UI.EventStreamsPerUser, cfg.UI.EventStreams = 2, 3, 4
			})
			ctx := t.Context()
			alice1, alice2, bob := e.Browser(t), e.Browser(t), e.Browser(t)
			alice1.Onboarded("alice")
			alice2.Login("alice")
			bob.Onboarded("bob")
			open := func(b *handlerstest.Browser, want int) *http.Response {
				t.Helper()
				got, res := b.OpenStream(ctx)
				if got != want {
					t.Fatalf("GET /events = %d, want %d", got, want)
				}
				return res
			}
			first := open(alice1, 200)
			open(alice1, 200)
			open(alice1, 429) // per login
			open(alice2, 200)
			r := alice2.Get("/events")
			handlerstest.MustHave(t, r, 429, "too many live-update streams for this user")
			if r.Header.Get("Retry-After") == "" {
				t.Error("429 without Retry-After")
			}
			open(bob, 200) // the fourth in all
			handlerstest.MustHave(t, bob.Get("/events"), 429, "the server has too many live-update streams open")
			// Closing one frees its place once the server notices.
			first.Body.Close()
			deadline := time.Now().Add(5 * time.Second)
			for {
				if got, _ := bob.OpenStream(ctx); got == 200 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("a closed stream's place was not freed")
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// TestUIEventsThousandsOfStreams opens 2,000 streams of one user (caps
// raised for it) and checks that other pages and /readyz stay fast, that
// the streams still deliver changes, and what a stream costs in memory.
// Before the hub, every stream polled the database itself: the pool was
// exhausted and /readyz answered 503 (issue 21).
func TestUIEventsThousandsOfStreams(t *testing.T) {
	const streams = 2000
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			e := handlerstest.NewUIEnvWith(t, engine, func(cfg *handlers.Config) {
				cfg.UI.EventStreamsPerSession, cfg.UI.EventStreamsPerUser, cfg.UI.EventStreams = streams, streams, streams
			})
			b := e.Browser(t)
			csrf := b.Onboarded("alice")
			b.C.Transport = &http.Transport{MaxIdleConnsPerHost: 64}
			t.Cleanup(b.C.CloseIdleConnections)

			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			var (
				wg     sync.WaitGroup
				mu     sync.Mutex
				open   []*http.Response
				failed atomic.Int32
				next   atomic.Int32
			)
			for range 32 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for next.Add(1) <= streams {
						code, res := b.OpenStream(t.Context())
						if code != 200 {
							failed.Add(1)
							continue
						}
						mu.Lock()
						open = append(open, res)
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			if n := failed.Load(); n > 0 {
				t.Fatalf("%d of %d streams refused", n, streams)
			}
			runtime.GC()
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			// Client and server sides both count: goroutines, buffers.
			perStream := (int64(after.HeapInuse+after.StackInuse) - int64(before.HeapInuse+before.StackInuse)) / streams
			t.Logf("%d streams open; about %d KiB each, client and server together", streams, perStream>>10)
			if perStream > 128<<10 {
				t.Errorf("a stream costs %d KiB, want under 128", perStream>>10)
			}

			// Let the streams poll a while, then time other requests.
			time.Sleep(500 * time.Millisecond)
			for _, path := range []string{"/readyz", "/holdings", "/readyz", "/history", "/readyz"} {
				start := time.Now()
				r := b.Get(path)
				d := time.Since(start)
				t.Logf("GET %s in %s", path, d.Round(time.Millisecond))
				if r.Status != 200 || d > 500*time.Millisecond {
					t.Errorf("GET %s with %d streams open = %d in %s, want 200 within 500 ms: %.200s", path, streams, r.Status, d, r.Body)
				}
			}
			// The streams still hear of a change.
			if r := b.Post("/tap", map[string][]string{"csrf_token": {csrf}, "amount": {"1"}}); r.Status != 303 {
				t.Fatalf("tap = %d", r.Status)
			}
			for _, res := range []*http.Response{open[0], open[len(open)/2], open[len(open)-1]} {
				if !waitForEvent(res.Body, "event: changed", 10*time.Second) {
					t.Error("a stream did not hear of the tap")
				}
			}
		})
	}
}

// waitForEvent reads body until it holds want or the time is up.
func waitForEvent(body io.ReadCloser, want string, within time.Duration) bool {
	found := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(body)
		for sc.Scan() {
			if strings.Contains(sc.Text(), want) {
				found <- true
				return
			}
		}
		found <- false
	}()
	select {
	case ok := <-found:
		return ok
	case <-time.After(within):
		body.Close()
		return false
	}
}

// errorLog collects the log records at level error.
type errorLog struct {
	mu   sync.Mutex
	recs bytes.Buffer
}

func (l *errorLog) Enabled(_ context.Context, lvl slog.Level) bool { return lvl >= slog.LevelError }
func (l *errorLog) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recs.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool { l.recs.WriteString(" " + a.String()); return true })
	l.recs.WriteString("\n")
	return nil
}
func (l *errorLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *errorLog) WithGroup(string) slog.Handler      { return l }

// TestUIEventsDisconnectIsNotAnError: clients that go away at any moment,
// opening the stream or while it is open, leave no error in the log
// (every disconnect was logged as a 500 before, issue 21).
func TestUIEventsDisconnectIsNotAnError(t *testing.T) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			logs := &errorLog{}
			e := handlerstest.NewUIEnvLog(t, engine, slog.New(logs), func(cfg *handlers.Config) {
				cfg.UI.EventStreamsPerSession, cfg.UI.EventStreamsPerUser, cfg.UI.EventStreams = 1000, 1000, 1000
			})
			b := e.Browser(t)
			b.Onboarded("alice")
			var wg sync.WaitGroup
			for i := range 400 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ctx, cancel := context.WithTimeout(t.Context(), time.Duration(rand.IntN(40))*time.Millisecond)
					defer cancel()
					req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.Srv.URL+"/events", nil)
					if i%2 == 0 {
						req.Header.Set("Accept", "text/event-stream")
					}
					if res, err := b.C.Do(req); err == nil {
						io.Copy(io.Discard, res.Body)
						res.Body.Close()
					}
				}()
			}
			wg.Wait()
			// The server finishes the cancelled requests after the client.
			time.Sleep(300 * time.Millisecond)
			logs.mu.Lock()
			defer logs.mu.Unlock()
			if logs.recs.Len() > 0 {
				t.Errorf("client disconnects were logged as errors:\n%.2000s", logs.recs.String())
			}
		})
	}
}

// TestUIEventsRestore: a restore of the development network tells every
// open stream that the state changed, though no history grew (the page's
// balance, offers and holdings may all differ).
func TestUIEventsRestore(t *testing.T) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			e := handlerstest.NewUIEnv(t, engine)
			alice := e.Browser(t)
			alice.Onboarded("alice")
			restore := ledgertest.Snapshot(t, e.L)
			_, res := alice.OpenStream(t.Context())
			if res == nil {
				t.Fatal("no stream")
			}
			restore(t)
			if !waitForEvent(res.Body, "event: changed", 5*time.Second) {
				t.Error("no changed event after the restore")
			}
		})
	}
}
