package sched_test

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time, user and kernel, that the process has used so
// far: Windows has no getrusage, GetProcessTimes is its equivalent.
func cpuTime(t *testing.T) time.Duration {
	h, err := syscall.GetCurrentProcess()
	if err != nil {
		t.Fatalf("GetCurrentProcess: %v", err)
	}
	var creation, exit, kernel, user syscall.Filetime
	if err := syscall.GetProcessTimes(h, &creation, &exit, &kernel, &user); err != nil {
		t.Fatalf("GetProcessTimes: %v", err)
	}
	// A Filetime counts 100 ns intervals; Nanoseconds would read it as a
	// date since 1601, so the two halves are combined here.
	ticks := func(f syscall.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ticks(kernel) + ticks(user)) * 100)
}
