package restoregate_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/ledger/restoregate"
)

var errConflict = errors.New("conflict")

// TestGate: a closed gate turns entries away and a second Close with
// the caller's conflict; Close waits for those in flight to leave; a
// Close whose context ends first, or whose wait runs out, opens the gate
// again.
func TestGate(t *testing.T) {
	ctx := context.Background()
	var g restoregate.Gate
	if !g.Enter() {
		t.Fatal("an open gate refused an entry")
	}
	left := make(chan struct{})
	go func() {
		defer close(left)
		g.Leave()
	}()
	if err := g.Close(ctx, time.Hour, errConflict); err != nil {
		t.Fatalf("close with one in flight: %v", err)
	}
	<-left
	if g.Enter() {
		t.Error("a closed gate let an entry in")
	}
	if err := g.Close(ctx, time.Hour, errConflict); !errors.Is(err, errConflict) {
		t.Errorf("a second close = %v, want the conflict", err)
	}
	g.Open()
	if !g.Enter() {
		t.Fatal("an opened gate refused an entry")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := g.Close(cancelled, time.Hour, errConflict); !errors.Is(err, context.Canceled) {
		t.Errorf("close with a cancelled context = %v", err)
	}
	if err := g.Close(ctx, 0, errConflict); !errors.Is(err, errConflict) {
		t.Errorf("close while one stays in flight = %v, want the conflict", err)
	}
	if !g.Enter() {
		t.Error("the gate stayed closed after a close that gave up")
	}
	g.Leave()
	g.Leave()
	ran := 0
	g.AddHook(func() { ran++ })
	g.AddHook(func() { ran += 10 })
	for _, h := range g.Hooks() {
		h()
	}
	if ran != 11 {
		t.Errorf("hooks ran to %d, want 11", ran)
	}
}
