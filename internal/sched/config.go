package sched

import (
	"fmt"
	"time"
)

// Config is what New needs to start a pool; package pool fills it from its
// options.
type Config struct {
	Workers       int    // number of worker goroutines
	DequeCapacity int    // capacity of each worker's deque, rounded up to a power of two
	Name          string // for Stats, profiler labels and traces
	MaxBlocking   int    // cap on the user's tasks in blocking sections at once; 0: none
	// StallThreshold is how long the stall report waits after the first
	// block it describes (stall.md, W5); 0: DefaultStallThreshold; < 0:
	// no watch at all (no spares, no report).
	StallThreshold time.Duration
	// StallHandler is called with the pool's stall report
	// (W5), on the monitor's goroutine; nil: no report.
	StallHandler func(StallReport)
}

// maxWorkers bounds the worker count: the control word packs the number of
// searching, sleeping and waiting workers into 20 bits each, and beyond a few
// thousand workers the victim scans would dominate anyway.
const maxWorkers = 1 << 16

func (c Config) check() {
	if c.Workers < 1 || c.Workers > maxWorkers {
		panic(fmt.Sprintf("pool: %d workers: need 1 to %d", c.Workers, maxWorkers))
	}
	if c.MaxBlocking < 0 {
		panic(fmt.Sprintf("pool: a cap of %d blocking sections: must be at least 1, or 0 for none", c.MaxBlocking))
	}
	if c.DequeCapacity < 1 {
		panic(fmt.Sprintf("pool: deque capacity %d: must be at least 1", c.DequeCapacity))
	}
}
