package timerslack

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

// Apply gives every thread of this process the slack d (the package
// comment says how). Once the slack is d it returns at once; if the exec
// fails, the process goes on with the kernel's slack and says so.
func Apply(d time.Duration, stderr io.Writer) {
	if d <= 0 {
		return
	}
	runtime.LockOSThread() // the prctl and the exec on one thread
	defer runtime.UnlockOSThread()
	if Now() == d {
		return
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerSlack, uintptr(d), 0); e != 0 || Now() != d {
		fmt.Fprintf(stderr, "ccwallet: timer slack left as the kernel's: %v\n", e)
		return // never exec without the slack set: that would loop
	}
	exe, err := os.Executable()
	if err == nil {
		err = syscall.Exec(exe, os.Args, os.Environ())
	}
	fmt.Fprintf(stderr, "ccwallet: timer slack left as the kernel's: %v\n", err)
}

// Now is the calling thread's timer slack.
func Now() time.Duration {
	v, _, _ := syscall.RawSyscall(syscall.SYS_PRCTL, prGetTimerSlack, 0, 0)
	return time.Duration(v)
}
