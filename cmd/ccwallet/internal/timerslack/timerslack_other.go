//go:build !linux

package timerslack

import (
	"io"
	"time"
)

// Apply does nothing where the kernel has no timer slack to set.
func Apply(time.Duration, io.Writer) {}

// Now is 0 where the kernel has no timer slack.
func Now() time.Duration { return 0 }
