package main

import (
	"fmt"
	"time"
)

// envTimerSlack sets how late the kernel may wake the serving process's
// threads from a timed sleep (Linux's timer slack, systemd's
// TimerSlackNSec): a Go duration, "0" for the kernel's own (50 µs).
const envTimerSlack = "WALLET_TIMER_SLACK"

// defaultTimerSlack: the Go runtime's monitor thread (sysmon) naps 20 µs
// at a time while the process is busy, and with the kernel's 50 µs slack
// each nap is a system call and a context switch, thousands a second:
// 8-9% of the wallet's CPU under load on a virtual machine. A slack of
// 1 ms spent 13-24% less of the wallet's CPU an operation in the shipped
// rows at the same rates and p99 (bench/NOTES.md, 2026-12-02). The wallet
// needs no finer timers: a send's gather (700 µs) may run a millisecond
// longer, and the runtime's timers wake through epoll's millisecond ones.
const defaultTimerSlack = time.Millisecond

// timerSlack is envTimerSlack's value: the slack to apply, 0 to leave the
// kernel's.
func timerSlack(get func(string) string) (time.Duration, error) {
	v := get(envTimerSlack)
	if v == "" {
		return defaultTimerSlack, nil
	}
	if v == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Microsecond || d > time.Second {
		return 0, fmt.Errorf("%s: want a duration from 1µs to 1s such as 1ms, or 0 for the kernel's, not %q", envTimerSlack, v)
	}
	return d, nil
}
