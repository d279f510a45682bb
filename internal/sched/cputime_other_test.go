//go:build !unix && !windows

package sched_test

import (
	"testing"
	"time"
)

// cpuTime skips the test: this system has neither getrusage nor
// GetProcessTimes, so the process's CPU time is not measured here.
func cpuTime(t *testing.T) time.Duration {
	t.Skip("the process's CPU time is measured on Unix and Windows only")
	return 0
}
