//go:build unix

package bench

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time, user and system, that the process has
// used so far, or 0 if the system cannot tell.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pageFaults returns the page faults the process has taken so far (minor
// and major), or 0 if the system cannot tell.
func pageFaults() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return int64(ru.Minflt + ru.Majflt)
}
