// Package restoregate is the gate a development network's restore or
// reset closes (ledger/devnet, through the core's Dev.Close): it counts the requests and jobs
// in flight (Enter, Leave), so a restore can wait for them (Close), and
// turns new ones away while it runs, until Open; and it keeps the steps
// to run after each restore (AddHook, Hooks). The core holds one per
// network and admits through it (Ledger.Admit). It imports nothing of the
// ledger.
package restoregate

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Gate counts the requests and jobs in flight, so a restore can wait for
// them, and turns new ones away while it runs. Its zero value is open.
type Gate struct {
	mu      sync.Mutex
	active  int
	closed  bool
	drained chan struct{} // closed when active reaches 0 while closed
	hooks   []func()      // AddHook's
}

// AddHook adds fn to the steps run after each restore.
func (g *Gate) AddHook(fn func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.hooks = append(g.hooks, fn)
}

// Hooks are the steps added by AddHook, in order.
func (g *Gate) Hooks() []func() {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.hooks)
}

// Enter lets one request or job in, unless the gate is closed (false).
// Leave must be called when it ends.
func (g *Gate) Enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.active++
	return true
}

// Leave ends what Enter let in.
func (g *Gate) Leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.active--
	if g.closed && g.active == 0 && g.drained != nil {
		close(g.drained)
		g.drained = nil
	}
}

// Close turns new entries away and waits up to wait for those in flight.
// It fails, wrapping conflict (the caller's kind of error), when the gate
// is closed already or those in flight outlast wait; then, or when ctx
// ends first, the gate is open again.
func (g *Gate) Close(ctx context.Context, wait time.Duration, conflict error) error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return fmt.Errorf("%w: another restore or reset is running", conflict)
	}
	g.closed = true
	if g.active == 0 {
		g.mu.Unlock()
		return nil
	}
	drained := make(chan struct{})
	g.drained = drained
	g.mu.Unlock()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-drained:
		return nil
	case <-timer.C:
		g.Open()
		return fmt.Errorf("%w: requests still running after %s; try again", conflict, wait)
	case <-ctx.Done():
		g.Open()
		return ctx.Err()
	}
}

// Open lets entries in again.
func (g *Gate) Open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = false
	g.drained = nil
}
