//go:build unix

package sched_test

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time, user and system, that the process has used so
// far (getrusage; cputime_windows_test.go has the Windows form).
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
