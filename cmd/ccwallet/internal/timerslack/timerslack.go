// Package timerslack gives the serving process a coarser timer slack
// before the rest of the program starts.
//
// Go's runtime monitor (sysmon) naps 20 µs at a time while the process is
// busy, and with the kernel's 50 µs slack each nap is a system call and a
// context switch, thousands a second: 8-9% of the wallet's CPU under load
// on a virtual machine. A slack of 1 ms spent 13-24% less of the wallet's
// CPU an operation in the shipped rows at the same rates and p99
// (bench/NOTES.md, 2026-12-02). The wallet needs no finer timers: a send's
// gather (700 µs) may run a millisecond longer, and the runtime's timers
// wake through epoll's millisecond ones.
//
// A thread may set only its own slack, and the runtime's threads exist
// before any package starts; a new thread takes its creator's slack and a
// process keeps it across execve (prctl(2)). So the package's init, which
// runs before the program's larger packages (init order follows import
// paths among packages whose imports are ready, and this one imports
// little), sets its thread's slack and runs the program again, as
// systemd's TimerSlackNSec sets it before the exec.
package timerslack

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// Env sets how late the kernel may wake the serving process's threads
// from a timed sleep: a Go duration, "0" for the kernel's own (50 µs).
const Env = "WALLET_TIMER_SLACK"

// Default is the slack serve runs with unless Env says otherwise.
const Default = time.Millisecond

func init() {
	if cmd, _ := Command(os.Args[1:]); cmd != "serve" || testing.Testing() {
		return // a test binary's flags would read as serve's
	}
	d, err := Setting(os.Getenv)
	if err != nil { // refused before anything starts
		fmt.Fprintln(os.Stderr, "ccwallet:", err)
		os.Exit(1)
	}
	Apply(d, os.Stderr)
}

// Command is the ccwallet command args name and the arguments after it:
// serve when they begin with a flag or are empty.
func Command(args []string) (string, []string) {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		args = append([]string{"help"}, args[1:]...) // every command, not only serve's flags
	}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0], args[1:]
	}
	return "serve", args
}

// Setting is Env's value: the slack to apply, 0 to leave the kernel's.
func Setting(get func(string) string) (time.Duration, error) {
	v := get(Env)
	if v == "" {
		return Default, nil
	}
	if v == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Microsecond || d > time.Second {
		return 0, fmt.Errorf("%s: want a duration from 1µs to 1s such as 1ms, or 0 for the kernel's, not %q", Env, v)
	}
	return d, nil
}
