//go:build !unix

package bench

import "time"

// processCPU returns 0: the CPU time is measured on Unix systems only.
func processCPU() time.Duration { return 0 }

// pageFaults returns 0: page faults are counted on Unix systems only.
func pageFaults() int64 { return 0 }
