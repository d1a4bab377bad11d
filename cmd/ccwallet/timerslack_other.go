//go:build !linux

package main

import (
	"io"
	"time"
)

// applyTimerSlack does nothing where the kernel has no timer slack to set.
func applyTimerSlack(time.Duration, io.Writer) {}

func slackNow() uintptr { return 0 }
