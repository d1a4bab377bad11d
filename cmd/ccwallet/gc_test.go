package main

import (
	"os"
	"runtime/debug"
	"testing"
)

func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "77") // restored when the test ends
	debug.SetGCPercent(77) // as the runtime applied it at start
	if v, from := tuneGC(); v != "77" || from != "GOGC" {
		t.Fatalf("with GOGC=77: %q from %q", v, from)
	}
	if prev := debug.SetGCPercent(100); prev != 77 {
		t.Fatalf("the operator's GOGC was overridden: %d", prev)
	}
	os.Unsetenv("GOGC")
	if v, from := tuneGC(); v != "200" || from != "default" {
		t.Fatalf("without GOGC: %q from %q", v, from)
	}
	if prev := debug.SetGCPercent(100); prev != defaultGCPercent {
		t.Fatalf("without GOGC the target is %d, want %d", prev, defaultGCPercent)
	}
}
