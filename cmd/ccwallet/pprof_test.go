package main

import "testing"

// The profiler shows the process's memory: it listens on loopback only.
func TestPprofLoopbackOnly(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:6060": true, "[::1]:6060": true, "127.0.0.1:0": true,
		":6060": false, "0.0.0.0:6060": false, "localhost:6060": false, "10.0.0.1:6060": false, "127.0.0.1": false, "": false,
	} {
		if got := loopbackAddr(addr); got != want {
			t.Errorf("loopbackAddr(%q) = %v, want %v", addr, got, want)
		}
	}
}
