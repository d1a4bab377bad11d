package bench

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// BenchmarkZWriteResults writes bench/results.md from the rows of the
// benchmarks before it. go test runs benchmarks in the order of their files'
// names, then of their source: this file's name sorts it last.
func BenchmarkZWriteResults(b *testing.B) {
	results.Lock()
	defer results.Unlock()
	var sb strings.Builder
	sb.WriteString("# Benchmark results\n\n")
	fmt.Fprintf(&sb, "Run %s on %s (`make bench`). Same-run references; medians where repeated. "+
		"The rows \"Shipped binary\" measure `ccwallet serve` as users run it, driven by bench/loadgen from a process of its own; "+
		"the other rows run handlers and client in one process and stay as a breakdown.\n\n", time.Now().UTC().Format(time.RFC3339), hostInfo())
	sb.WriteString(aimsTable())
	sb.WriteString("| metric | ccwallet | reference (same run) | note |\n|---|---|---|---|\n")
	for _, r := range results.rows {
		fmt.Fprintf(&sb, "| %s | %s | %s | %s |\n", r[0], r[1], r[2], r[3])
	}
	fmt.Print(sb.String())
	if err := os.WriteFile("results.md", []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
}

// hostInfo is the machine's cores and CPU model: the ratios to pgbench
// move with the machine (bench/NOTES.md, 2026-11-30: one build's 8-client
// ratio 1.03 on one model and 0.48 on another), so a table says where it
// was measured.
func hostInfo() string {
	out, _ := exec.Command("nproc").Output()
	s := strings.TrimSpace(string(out)) + " cores"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				return s + " of " + strings.Join(strings.Fields(v), " ")
			}
		}
	}
	return s
}
