package shared

import (
	"fmt"
	"net/http"
	"time"
)

// The server-sent event streams: the web wallet's /events and the JSON
// API's /v0/updates/stream.

// EventKeepAlive is how often an idle stream sends a comment, so proxies
// do not time it out and a vanished client is noticed.
const EventKeepAlive = 15 * time.Second

// StartEventStream answers 200 with a server-sent event stream's headers
// and its first lines (retry: how long a browser waits before
// reconnecting, then a comment), flushed.
func StartEventStream(w http.ResponseWriter, comment string) (*http.ResponseController, error) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "retry: 5000\n: %s\n\n", comment)
	return rc, rc.Flush()
}

// CountDown takes one from counts[k], dropping the key at zero.
func CountDown(counts map[string]int, k string) {
	if counts[k]--; counts[k] <= 0 {
		delete(counts, k)
	}
}

// EventRetryAfter is the Retry-After of a refused stream.
const EventRetryAfter = 30 * time.Second
