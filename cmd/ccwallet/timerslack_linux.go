package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"
	"time"
)

const (
	prSetTimerSlack = 29 // PR_SET_TIMERSLACK
	prGetTimerSlack = 30 // PR_GET_TIMERSLACK
)

// applyTimerSlack gives every thread of this process the slack d. A
// thread may set only its own, and the runtime's threads, sysmon among
// them, exist before main runs; a new thread takes its creator's slack and
// a process keeps it across execve (prctl(2)), so the process sets its
// thread's and runs itself again, as systemd's TimerSlackNSec sets it
// before the exec. Once the slack is d it returns at once; if the exec
// fails, the process goes on with the kernel's slack and says so.
func applyTimerSlack(d time.Duration, stderr io.Writer) {
	if d <= 0 {
		return
	}
	runtime.LockOSThread() // the prctl and the exec on one thread
	defer runtime.UnlockOSThread()
	if slackNow() == uintptr(d) {
		return
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerSlack, uintptr(d), 0); e != 0 || slackNow() != uintptr(d) {
		fmt.Fprintf(stderr, "ccwallet: timer slack left as the kernel's: %v\n", e)
		return // never exec without the slack set: that would loop
	}
	exe, err := os.Executable()
	if err == nil {
		err = syscall.Exec(exe, os.Args, os.Environ())
	}
	fmt.Fprintf(stderr, "ccwallet: timer slack left as the kernel's: %v\n", err)
}

// slackNow is the calling thread's timer slack in nanoseconds.
func slackNow() uintptr {
	v, _, _ := syscall.RawSyscall(syscall.SYS_PRCTL, prGetTimerSlack, 0, 0)
	return v
}
